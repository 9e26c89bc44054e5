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
