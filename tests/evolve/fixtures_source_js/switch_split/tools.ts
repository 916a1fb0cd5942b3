export const ECHO_TOOL = {
  name: "echo",
  description: "Echo a message back",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
};

export const REVERSE_TOOL = {
  name: "reverse",
  description: "Reverse a message",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
};
