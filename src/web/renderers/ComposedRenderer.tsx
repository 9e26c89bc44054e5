import { useCallback, useEffect, useState } from 'react';
import { LoadFailed } from '../shell/LoadFailed';
import { ErrorBlock } from 'antd-mobile';
import { useSearchParams } from 'react-router-dom';
import type { ComposedScreen, Part } from '../config/types';
import { api } from '../api';
import { Loading } from '../shell/Loading';
import { CalendarPartView } from './composed/CalendarPartView';
import { CardsPartView } from './composed/CardsPartView';
import { ChartPartView } from './composed/ChartPartView';
import { DetailPartView } from './composed/DetailPartView';
import { DocumentPartView } from './composed/DocumentPartView';
import { ListPartView } from './composed/ListPartView';
import { StatsPartView } from './composed/StatsPartView';
import { LiveTick } from './composed/live-tick';
import { useLive } from '../live/useLive';
import './composed/composed.css';

// A composed screen of screens.config.ts: its record read once, then its parts one above the other. The map typed
// every part's callbacks against the record and its own operation (composedScreen); here the record is opaque.

type Data = unknown;
type State = { status: 'loading' } | { status: 'error' } | { status: 'ready'; data: Data };

function PartView({
  part,
  data,
  reload,
  refresh,
}: {
  part: Part<Data>;
  data: Data;
  reload: () => void;
  refresh: () => void;
}) {
  switch (part.type) {
    case 'detail':
      return <DetailPartView part={part} data={data} onChanged={reload} />;
    case 'list':
      return <ListPartView part={part} data={data} onSettled={reload} onChanged={refresh} />;
    case 'cards':
      return <CardsPartView part={part} />;
    case 'stats':
      return <StatsPartView part={part} />;
    case 'chart':
      return <ChartPartView part={part} />;
    case 'calendar':
      return <CalendarPartView part={part} data={data} />;
    case 'document':
      return <DocumentPartView part={part} data={data} />;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the map's composed screens, each checked by composedScreen()
export function ComposedRenderer({ screen: typed }: { screen: ComposedScreen<any> }) {
  const screen = typed as unknown as Omit<ComposedScreen, 'unavailable' | 'body'> & {
    unavailable?: (data: Data) => { title: string; description: string } | null;
    body: readonly Part<Data>[];
  };
  const [params] = useSearchParams();
  const search = params.toString();
  const [state, setState] = useState<State>({ status: 'loading' });
  // A new generation re-reads the record and remounts the parts (their lists reload with it).
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  // A change heard on the event stream: the record and the parts read again in place (nothing remounts or flashes).
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  useLive(screen.liveOn, refresh);

  useEffect(() => {
    const { load } = screen;
    if (!load) {
      setState({ status: 'ready', data: undefined });
      return;
    }
    const controller = new AbortController();
    api
      .call(load.operation, { ...load.args(new URLSearchParams(search)), signal: controller.signal, quiet: true })
      .then(
        (data: Data) => !controller.signal.aborted && setState({ status: 'ready', data }),
        () => !controller.signal.aborted && setState({ status: 'error' }),
      );
    return () => controller.abort();
  }, [screen, search, generation, tick]);

  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error') {
    return <LoadFailed retry={reload} />;
  }
  const unavailable = screen.unavailable?.(state.data);
  if (unavailable) {
    return (
      <ErrorBlock
        status="empty"
        title={unavailable.title}
        description={unavailable.description}
        className="composed-unavailable"
      />
    );
  }
  return (
    <div className="composed-screen">
      <LiveTick.Provider value={tick}>
        {screen.body.map((part, index) => (
          <PartView key={`${generation}-${index}`} part={part} data={state.data} reload={reload} refresh={refresh} />
        ))}
      </LiveTick.Provider>
    </div>
  );
}
