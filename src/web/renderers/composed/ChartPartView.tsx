import { lazy, Suspense, useMemo, useState } from 'react';
import { Selector, Skeleton } from 'antd-mobile';
import type { ChartPart, ChartSpec } from '../../config/types';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { PartStatus } from './PartStatus';
import { usePartData } from './usePartData';

// The chart library is loaded only when a chart is drawn (this import is the only way in), so no other screen pays
// for it; see DrawnChart.tsx for which parts of ECharts it takes.
const DrawnChart = lazy(() => import('./DrawnChart'));

type Row = unknown;
type ErasedChartPart = Omit<ChartPart, 'args' | 'x' | 'charts'> & {
  args: (range: number) => object;
  x: (row: Row) => { short: string; full: string };
  charts: readonly ChartSpec<Row>[];
};

/** Charts over a chosen range from one operation, with a range switch; each chart shows a tapped point's figures. */
export function ChartPartView({ part: typed }: { part: ChartPart }) {
  const part = typed as unknown as ErasedChartPart;
  const [range, setRange] = useState(part.ranges[0]?.value ?? 7);
  const state = usePartData<{ series: readonly Row[] }>(part.operation, part.args(range));
  return (
    <section className="composed-charts">
      <Selector
        className="chart-ranges"
        columns={part.ranges.length}
        options={part.ranges.map((r) => ({ label: r.label, value: r.value }))}
        value={[range]}
        onChange={(v) => v[0] !== undefined && setRange(v[0])}
      />
      {state.status === 'ready' ? (
        part.charts.map((spec) => <OneChart key={spec.title} spec={spec} rows={state.data.series} part={part} />)
      ) : (
        <PartStatus status={state.status} retry={state.status === 'error' ? state.retry : undefined} />
      )}
    </section>
  );
}

function OneChart({ spec, rows, part }: { spec: ChartSpec<Row>; rows: readonly Row[]; part: ErasedChartPart }) {
  const [tapped, setTapped] = useState<number | null>(null);
  const format = spec.format ?? String;
  // Kept between renders, so a tap (which re-renders the figures) does not redraw the chart.
  const series = useMemo(
    () => spec.series.map((s) => ({ name: s.label, values: rows.map(s.value), tone: s.tone })),
    [spec, rows],
  );
  const labels = useMemo(() => rows.map((r) => part.x(r).short), [rows, part]);
  const empty = series.every((s) => s.values.every((v) => v === 0));
  const row = tapped === null ? undefined : rows[tapped];
  return (
    <div className="chart-card" data-chart={spec.title}>
      <h3 className="composed-heading">{spec.title}</h3>
      {empty ? (
        <div className="composed-empty chart-empty">{part.empty}</div>
      ) : (
        <>
          <Suspense fallback={<Skeleton className="chart-skeleton" animated />}>
            <DrawnChart kind={spec.kind} labels={labels} series={series} format={format} onTap={setTapped} />
          </Suspense>
          <div className="chart-figures" aria-live="polite">
            {row === undefined ? (
              <span className="chart-hint">{w.dashboard.tapHint}</span>
            ) : (
              <>
                <strong>{w.dashboard.dayFigures(part.x(row).full)}</strong>
                {spec.series.map((s) => (
                  <span key={s.label} className="chart-figure">
                    {s.label} {format(s.value(row))}
                  </span>
                ))}
              </>
            )}
          </div>
        </>
      )}
    </div>
  );
}
