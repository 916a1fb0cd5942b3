import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ECHO_TOOL, REVERSE_TOOL } from "./tools.js";
import { reverseText } from "./handlers.js";

const server = new Server({ name: "switchy", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO_TOOL, REVERSE_TOOL] }));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments as { message: string };
  switch (request.params.name) {
    case "echo": {
      return { content: [{ type: "text", text: args.message }] };
    }
    case "reverse":
      return { content: [{ type: "text", text: reverseText(args.message) }] };
    default:
      throw new Error("unknown tool");
  }
});
