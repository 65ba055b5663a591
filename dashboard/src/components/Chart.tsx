/**
 * ECharts, tree-shaken (echarts/core with only the line and bar charts, grid, tooltip, mark
 * line and the ARIA description, on canvas). The container is labelled for screen readers and
 * ECharts adds a generated description of the data.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { ComposeOption } from 'echarts/core';
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, MarkLineComponentOption, TooltipComponentOption, AriaComponentOption } from 'echarts/components';
import { useEffect, useRef } from 'preact/hooks';

echarts.use([LineChart, BarChart, GridComponent, TooltipComponent, LegendComponent, MarkLineComponent, AriaComponent, CanvasRenderer]);

export type ChartOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption | LegendComponentOption | MarkLineComponentOption | AriaComponentOption
>;

/**
 * `highlight`: a point (the first series' data index) whose tooltip to show, as hovering it
 * would (a table row beside the chart focused with the keyboard); null hides it.
 */
export function Chart(props: { option: ChartOption; label: string; height?: number; testId?: string; highlight?: number | null }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    if (!el.current) return;
    const c = echarts.init(el.current, undefined, { renderer: 'canvas' });
    chart.current = c;
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => c.resize());
    observer?.observe(el.current);
    return () => {
      observer?.disconnect();
      c.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption({ aria: { enabled: true }, animation: false, ...props.option }, { notMerge: true });
  }, [props.option]);

  useEffect(() => {
    const c = chart.current;
    if (!c || props.highlight === undefined) return;
    if (props.highlight === null) c.dispatchAction({ type: 'hideTip' });
    else c.dispatchAction({ type: 'showTip', seriesIndex: 0, dataIndex: props.highlight });
  }, [props.highlight, props.option]);

  return <div ref={el} class="chart" role="img" aria-label={props.label} data-testid={props.testId} style={{ height: `${props.height ?? 260}px` }} />;
}
