import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { handleShout } from "./handlers.js";

const server = new McpServer({ name: "register", version: "1.0.0" });

server.registerTool("greet", {
  description: "Say hello to someone",
  inputSchema: { who: z.string().describe("Who to greet") },
}, async ({ who }: { who: string }) => {
  const text = `Hello, ${who}!`;
  return { content: [{ type: "text", text }] };
});

server.tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
  return { content: [{ type: "text", text: String(a + b) }] };
});

server.registerTool("shout", {
  description: "Shout a word",
  inputSchema: { word: z.string() },
}, handleShout);
