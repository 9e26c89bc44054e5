import type { StatsPart, Stat } from '../../config/types';
import { StateTag } from '../StateTag';
import { PartStatus } from './PartStatus';
import { usePartData } from './usePartData';

type Data = unknown;
type ErasedStats = Omit<StatsPart, 'groups' | 'note'> & {
  groups: readonly { title: string; stats: readonly Stat<Data>[] }[];
  note?: (data: Data) => string;
};

/** An operation's record as stat cards: a heading per group, then a figure and its words per card. */
export function StatsPartView({ part: typed }: { part: StatsPart }) {
  const part = typed as unknown as ErasedStats;
  const state = usePartData<Data>(part.operation, {});
  if (state.status !== 'ready') {
    return <PartStatus status={state.status} retry={state.status === 'error' ? state.retry : undefined} />;
  }
  const { data } = state;
  return (
    <section className="composed-stats">
      {part.groups.map((group) => (
        <div key={group.title} className="stats-group">
          <h3 className="composed-heading">{group.title}</h3>
          <div className="stats-grid">
            {group.stats.map((stat) => (
              <div key={stat.label} className="stat-card">
                <div className="stat-value">{stat.value(data)}</div>
                <div className="stat-label">{stat.label}</div>
                <StateTag value={stat.tag?.(data)} />
              </div>
            ))}
          </div>
        </div>
      ))}
      {part.note ? <div className="stats-note">{part.note(data)}</div> : null}
    </section>
  );
}
