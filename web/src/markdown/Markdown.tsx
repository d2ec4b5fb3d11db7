//! PLACEHOLDER, replaced by the preview work.
export function Markdown({ text }: { text: string; from: string }) {
  return <pre>{text}</pre>;
}
