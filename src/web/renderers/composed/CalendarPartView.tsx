import { useEffect, useRef, useState, type TouchEvent } from 'react';
import { Button, CalendarPickerView } from 'antd-mobile';
import type { CalendarPart, ListItem, ListPart, Tone } from '../../config/types';
import { siteToday } from '../../i18n/site-zone';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { ListPartView } from './ListPartView';
import { PartStatus } from './PartStatus';
import { usePartData } from './usePartData';

type Data = unknown;
type Mark = { label: string; sign: string; tone: Tone };
type ErasedCalendar = {
  type: 'calendar';
  title?: string;
  operation: CalendarPart<Data>['operation'];
  args: (month: string, data: Data) => object | null;
  marks: Readonly<Record<string, Mark>>;
  day: {
    operation: ListPart<Data>['operation'];
    filter: (day: string, data: Data) => Record<string, unknown>;
    item: ListItem<unknown>;
    empty: string;
  };
};

const pad = (n: number) => String(n).padStart(2, '0');
const monthOf = (year: number, month: number) => `${year}-${pad(month)}`;
/** The month `by` months after `month` (yyyy-mm). */
const shiftMonth = (month: string, by: number) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(y, m - 1 + by, 1);
  return monthOf(d.getFullYear(), d.getMonth() + 1);
};
const dayOf = (d: Date) => `${monthOf(d.getFullYear(), d.getMonth() + 1)}-${pad(d.getDate())}`;
/** A horizontal swipe longer than this (px) turns the month. */
const SWIPE_PX = 48;

/** A month calendar marking days by the operation's marks; swipe or the arrows turn months; a tapped day lists its runs. */
export function CalendarPartView({ part: typed, data }: { part: CalendarPart<Data>; data: Data }) {
  const part = typed as unknown as ErasedCalendar;
  // The site's current month (TZ_SITE), as the server counts runs: the phone may be in another zone.
  const [month, setMonth] = useState(() => siteToday().slice(0, 7));
  const [picked, setPicked] = useState<string | null>(null);
  const swipeFrom = useRef<number | null>(null);
  const dayList = useRef<HTMLDivElement>(null);
  // A tapped day's runs are listed under the calendar, below the fold on a phone: bring them into view.
  useEffect(() => {
    if (picked !== null) dayList.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }, [picked]);
  const args = part.args(month, data);
  const state = usePartData<{ days: readonly { day: string; mark: string }[] }>(part.operation, args);
  if (args === null) return null;
  const marks = new Map(state.status === 'ready' ? state.data.days.map((d) => [d.day, part.marks[d.mark]]) : []);

  const turn = (by: number) => {
    setMonth((m) => shiftMonth(m, by));
    setPicked(null);
  };
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const onTouchStart = (e: TouchEvent) => (swipeFrom.current = e.touches[0]?.clientX ?? null);
  const onTouchEnd = (e: TouchEvent) => {
    const from = swipeFrom.current;
    const to = e.changedTouches[0]?.clientX;
    swipeFrom.current = null;
    if (from === null || to === undefined || Math.abs(to - from) < SWIPE_PX) return;
    turn(to < from ? 1 : -1);
  };

  return (
    <section className="composed-calendar">
      {part.title ? <h3 className="composed-heading">{part.title}</h3> : null}
      <div className="calendar-box" onTouchStart={onTouchStart} onTouchEnd={onTouchEnd} data-month={month}>
        <div className="calendar-switch">
          <Button size="small" fill="none" onClick={() => turn(-1)} aria-label={w.calendar.previous}>
            ‹
          </Button>
          <span className="calendar-month">{w.calendar.month(year, monthNumber)}</span>
          <Button size="small" fill="none" onClick={() => turn(1)} aria-label={w.calendar.next}>
            ›
          </Button>
        </div>
        {/* One month at a time: the view spans just this month, and the switch above (or a swipe) turns it. */}
        <CalendarPickerView
          key={month}
          title={false}
          selectionMode="single"
          weekStartsOn="Monday"
          min={new Date(year, monthNumber - 1, 1)}
          max={new Date(year, monthNumber, 0)}
          onChange={(d) => setPicked(d ? dayOf(d) : null)}
          renderBottom={(date) => {
            const mark = marks.get(dayOf(date));
            return mark ? (
              <span className={`calendar-mark calendar-mark-${mark.tone}`} data-day={dayOf(date)} title={mark.label}>
                {mark.sign}
              </span>
            ) : null;
          }}
        />
      </div>
      <div className="calendar-legend" aria-label={w.calendar.legend}>
        {Object.values(part.marks).map((m) => (
          <span key={m.label} className="calendar-legend-item">
            <span className={`calendar-mark calendar-mark-${m.tone}`}>{m.sign}</span> {m.label}
          </span>
        ))}
      </div>
      {state.status !== 'ready' ? (
        <PartStatus status={state.status} retry={state.status === 'error' ? state.retry : undefined} />
      ) : null}
      {picked === null ? (
        <div className="stats-note">{w.calendar.pickDay}</div>
      ) : (
        <div ref={dayList} className="scroll-target" data-testid="calendar-day-runs">
          <ListPartView
            key={picked}
            part={
              {
                type: 'list',
                title: w.calendar.dayRuns(picked),
                operation: part.day.operation,
                filter: (d: Data) => part.day.filter(picked, d),
                item: part.day.item,
                empty: part.day.empty,
              } as unknown as ListPart<Data>
            }
            data={data}
            onSettled={() => {}}
          />
        </div>
      )}
    </section>
  );
}
