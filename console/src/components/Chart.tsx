import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  color: string;
}

const DPR_SAFE_HEIGHT = 180;

/**
 * A time-series line chart drawn by uPlot (a maintained, 50 KB canvas chart library). The figures
 * are also given as a table for screen readers, since a canvas says nothing to them.
 */
export function TimeChart({
  title,
  timestamps,
  series,
  format,
}: {
  title: string;
  timestamps: string[];
  series: ChartSeries[];
  format: (n: number) => string;
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const data: uPlot.AlignedData = [timestamps.map((t) => Date.parse(t) / 1000), ...series.map((s) => s.values)];
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: DPR_SAFE_HEIGHT,
        legend: { show: true },
        axes: [{}, { values: (_u, ticks) => ticks.map(format), size: 70 }],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            points: { show: false },
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          })),
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 280), height: DPR_SAFE_HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [timestamps, series, format]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={container} aria-hidden="true" />
      <table className="visually-hidden">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {timestamps.map((t, i) => (
            <tr key={t}>
              <td>{t}</td>
              {series.map((s) => (
                <td key={s.label}>{s.values[i] === null || s.values[i] === undefined ? '—' : format(s.values[i]!)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
