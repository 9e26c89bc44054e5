import type { DocumentPart } from '../../config/types';

type Data = unknown;

/** A long text to read: paragraphs at blank lines, line breaks kept inside them (CSS), every character as text. */
export function DocumentPartView({ part, data }: { part: DocumentPart<Data>; data: Data }) {
  const note = part.note?.(data);
  const paragraphs = part
    .text(data)
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <article className="composed-document">
      <h2 className="composed-document-title">{part.title(data)}</h2>
      {note ? <p className="composed-note">{note}</p> : null}
      {paragraphs.map((p, i) => (
        <p key={i} className="composed-document-paragraph">
          {p}
        </p>
      ))}
    </article>
  );
}
