import { useEffect, useRef } from 'react';
import { BarChart, LineChart } from 'echarts/charts';
import { AxisPointerComponent, GridComponent, LegendComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { ChartKind } from '../../config/types';

// ECharts through echarts/core with only what these charts draw (bars, lines, a grid, a legend, the axis pointer that
// marks the tapped day, the canvas renderer): the rest of the library stays out of the chunk. This module is reached
// only by the dynamic import in ChartPartView.
echarts.use([BarChart, LineChart, GridComponent, LegendComponent, AxisPointerComponent, CanvasRenderer]);

// Series colours told apart by shape too: lines get different symbols, and every series is named in the legend.
const PALETTE = ['#1677ff', '#00b578', '#ff3141', '#ff8f1f', '#7c3aed'];
const SYMBOLS = ['circle', 'triangle', 'rect', 'diamond', 'pin'];

export interface DrawnChartProps {
  kind: ChartKind;
  labels: readonly string[];
  series: readonly { name: string; values: readonly number[] }[];
  format: (value: number) => string;
  /** The index of the point tapped (a day). */
  onTap: (index: number) => void;
}

export default function DrawnChart({ kind, labels, series, format, onTap }: DrawnChartProps) {
  const box = useRef<HTMLDivElement>(null);

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
  }, [kind, labels, series, format, onTap]);

  return <div ref={box} className="chart-canvas" role="img" aria-label={series.map((s) => s.name).join('、')} />;
}
