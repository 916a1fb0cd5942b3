export async function handleShout({ word }: { word: string }) {
  return { content: [{ type: "text", text: word.toUpperCase() }] };
}
