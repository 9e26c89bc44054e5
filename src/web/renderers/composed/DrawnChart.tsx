import { useEffect, useRef, useSyncExternalStore } from 'react';
import { BarChart, LineChart } from 'echarts/charts';
import { AxisPointerComponent, GridComponent, LegendPlainComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { ChartKind, ChartTone } from '../../config/types';

// ECharts through echarts/core with only what these charts draw (bars, lines, a grid, a plain legend (not the
// scrolling one LegendComponent adds too), the axis pointer that marks the tapped day, the canvas renderer): the rest
// of the library stays out of the chunk. This module is reached only by the dynamic import in ChartPartView.
echarts.use([BarChart, LineChart, GridComponent, LegendPlainComponent, AxisPointerComponent, CanvasRenderer]);

// Series colours told apart by shape too: lines get different symbols, and every series is named in the legend.
const PALETTE = ['#1677ff', '#00b578', '#ff3141', '#ff8f1f', '#7c3aed'];
const SYMBOLS = ['circle', 'triangle', 'rect', 'diamond', 'pin'];
// A series with a meaning keeps its colour wherever it stands (成功 green, 失败 red, 跳过 grey), in either scheme: the
// light values are the palette's, the dark ones theme-dark.css's success and danger, the greys readable on each card.
type Scheme = 'light' | 'dark';
const TONES: Record<Scheme, Record<ChartTone, string>> = {
  light: { success: '#00b578', danger: '#ff3141', neutral: '#a3a3a3' },
  dark: { success: '#34b368', danger: '#ff5c69', neutral: '#8f8f8f' },
};

/**
 * The scheme in effect, read from the attribute app/color-scheme.ts keeps on <html> (importing that module here would
 * tie this chunk to the entry's), followed as it changes.
 */
const schemeNow = (): Scheme =>
  document.documentElement.getAttribute('data-prefers-color-scheme') === 'dark' ? 'dark' : 'light';
function followScheme(changed: () => void): () => void {
  const observer = new MutationObserver(changed);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-prefers-color-scheme'] });
  return () => observer.disconnect();
}

export interface DrawnChartProps {
  kind: ChartKind;
  labels: readonly string[];
  series: readonly { name: string; values: readonly number[]; tone?: ChartTone }[];
  format: (value: number) => string;
  /** The index of the point tapped (a day). */
  onTap: (index: number) => void;
}

export default function DrawnChart({ kind, labels, series, format, onTap }: DrawnChartProps) {
  const box = useRef<HTMLDivElement>(null);
  // Drawn again when the scheme changes: the canvas takes its colours at draw time.
  const scheme = useSyncExternalStore(followScheme, schemeNow);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const chart = echarts.init(element, undefined, { renderer: 'canvas' });
    // The canvas cannot read CSS variables: take the text colour the page has (light or dark) at draw time.
    const text = getComputedStyle(element).color || '#333';
    chart.setOption({
      animation: false,
      color: PALETTE,
      textStyle: { color: text },
      grid: { left: 8, right: 12, top: 36, bottom: 8, containLabel: true },
      legend: { top: 0, textStyle: { color: text }, itemWidth: 14, itemHeight: 10 },
      axisPointer: { show: true, type: 'shadow', triggerOn: 'none', link: [{ xAxisIndex: 'all' }] },
      xAxis: {
        type: 'category',
        data: labels,
        axisLabel: { color: text, hideOverlap: true },
        axisPointer: { show: true, type: 'shadow', triggerTooltip: false },
      },
      yAxis: {
        type: 'value',
        minInterval: 1,
        axisLabel: { color: text, formatter: (v: number) => format(v) },
        splitLine: { lineStyle: { opacity: 0.3 } },
        // Only the tapped day is marked; a label on the value axis would show the raw number (fen), not the format.
        axisPointer: { show: false },
      },
      series: series.map((s, i) => ({
        name: s.name,
        type: kind === 'line' ? 'line' : 'bar',
        stack: kind === 'stack' ? 'total' : undefined,
        data: s.values,
        ...(s.tone ? { itemStyle: { color: TONES[scheme][s.tone] }, lineStyle: { color: TONES[scheme][s.tone] } } : {}),
        symbol: SYMBOLS[i % SYMBOLS.length],
        symbolSize: 6,
        barMaxWidth: 18,
      })),
    });
    // A tap anywhere over a day (not only on a bar) picks that day: the DOM's click (which a tap also fires) is turned
    // into the category's index, and the axis pointer marks it.
    const pick = (event: MouseEvent) => {
      const rect = element.getBoundingClientRect();
      const point = [event.clientX - rect.left, event.clientY - rect.top];
      if (!chart.containPixel('grid', point)) return;
      const [index] = chart.convertFromPixel('grid', point);
      if (index === undefined || index < 0 || index >= labels.length) return;
      chart.dispatchAction({ type: 'updateAxisPointer', currTrigger: 'click', x: point[0], y: point[1] });
      onTap(Math.round(index));
    };
    element.addEventListener('click', pick);
    const resize = () => chart.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      element.removeEventListener('click', pick);
      chart.dispose();
    };
  }, [kind, labels, series, format, onTap, scheme]);

  return <div ref={box} className="chart-canvas" role="img" aria-label={series.map((s) => s.name).join('、')} />;
}
