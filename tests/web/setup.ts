import { createRequire } from 'node:module';

// jsdom has no canvas; antd-mobile's WaterMark draws its tile on one. A context that draws nothing is enough to
// render the frame (the watermark itself is checked in the browser tests).
const noop = () => undefined;
const fakeContext = new Proxy(
  { measureText: () => ({ width: 10 }), canvas: null },
  { get: (target, key) => (key in target ? target[key as keyof typeof target] : noop), set: () => true },
);
HTMLCanvasElement.prototype.getContext = (() => fakeContext) as unknown as HTMLCanvasElement['getContext'];
HTMLCanvasElement.prototype.toDataURL = () => 'data:image/png;base64,';

// jsdom lays nothing out and has no scrollIntoView; a screen that brings a part into view (a calendar day's runs)
// calls it. A test that cares what was scrolled replaces it.
Element.prototype.scrollIntoView = noop;

// antd-mobile animates its dialogs and popups with react-spring, frame by frame. jsdom's frames are timers that a busy
// machine starves: a dialog on its way out outlasted a 5 s wait under the full suite (CI) and was found by the next
// test. Here they open and leave at once; the browser tests (tests/e2e) see the real animations. antd-mobile is loaded
// by its CommonJS entry (package.json "main"), so the switch is set on react-spring's CommonJS copy, the one it uses.
const { Globals } = createRequire(import.meta.url)('@react-spring/web') as typeof import('@react-spring/web');
Globals.assign({ skipAnimation: true });
