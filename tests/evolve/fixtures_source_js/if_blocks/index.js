const { Server } = require("@modelcontextprotocol/sdk/server/index.js");

const server = new Server({ name: "iffy", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "double", description: "Double a number",
      inputSchema: { type: "object", properties: { n: { type: "number" } } } },
    { name: "negate", description: "Negate a number",
      inputSchema: { type: "object", properties: { n: { type: "number" } } } },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  if (name === "double") {
    return { content: [{ type: "text", text: String(args.n * 2) }] };
  } else if ("negate" === name) {
    return { content: [{ type: "text", text: String(-args.n) }] };
  }
  throw new Error(`unknown tool ${name}`);
});
