export function reverseText(message: string): string {
  return message.split("").reverse().join("");
}
