import { useEffect, useState } from 'react';
import { LoadFailed } from '../../shell/LoadFailed';
import { Card, Skeleton } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import type { CardsPart, TagValue } from '../../config/types';
import { api } from '../../api';
import { messages as t } from '../../i18n/zh-CN';
import { StateTag } from '../StateTag';

type Item = unknown;
type ErasedCards = Omit<CardsPart, 'card'> & {
  card: {
    title: (item: Item) => string;
    tag?: (item: Item) => TagValue | null;
    lines?: (item: Item) => readonly string[];
    to: (item: Item) => string;
  };
};

/** Every item of an operation answering an array, one tappable card each; a plain text when there are none. */
export function CardsPartView({ part: typed }: { part: CardsPart }) {
  const part = typed as unknown as ErasedCards;
  const navigate = useNavigate();
  const [items, setItems] = useState<readonly Item[] | 'loading' | 'error'>('loading');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setItems('loading');
    api.call(part.operation, { signal: controller.signal, quiet: true }).then(
      (data: unknown) => !controller.signal.aborted && setItems(data as readonly Item[]),
      () => !controller.signal.aborted && setItems('error'),
    );
    return () => controller.abort();
  }, [part.operation, attempt]);

  return (
    <section className="composed-cards">
      {part.title ? <h3 className="composed-heading">{part.title}</h3> : null}
      {items === 'loading' ? (
        <div className="list-skeleton" aria-busy="true" aria-label={t.shell.loading}>
          <Skeleton.Paragraph lineCount={3} animated />
        </div>
      ) : items === 'error' ? (
        <LoadFailed retry={() => setAttempt((n) => n + 1)} />
      ) : items.length === 0 ? (
        <div className="composed-empty">{part.empty}</div>
      ) : (
        items.map((item, index) => (
          <Card
            key={(item as { id?: number }).id ?? index}
            className="composed-card"
            title={part.card.title(item)}
            extra={<StateTag value={part.card.tag?.(item)} />}
            onClick={() => void navigate(part.card.to(item))}
          >
            {(part.card.lines?.(item) ?? []).map((line) => (
              <div key={line} className="composed-line">
                {line}
              </div>
            ))}
          </Card>
        ))
      )}
    </section>
  );
}
