import { BarController, BarElement, CategoryScale, Chart, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only the parts the dashboard draws, so the rest of Chart.js stays out of the bundle (ADR 41).
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip);

export interface DayChartProps {
  kind: 'bar' | 'line';
  /**
   * What the chart shows in words: the canvas is an image to a screen reader (`role="img"`) and this is its name. The
   * page also gives the figures as a table, which is the full alternative.
   */
  summary: string;
  /** One label a day, oldest first. */
  labels: readonly string[];
  /** One value a day; null leaves a gap (a share with nothing to judge by). */
  values: readonly (number | null)[];
  /** An axis tick, short. */
  tick: (value: number) => string;
  /** A day's tooltip, in full (the wire's money text, say, rather than the drawn float). */
  tooltip: (index: number) => string;
  max?: number;
  testId?: string;
}

/** The colour and font of the page (styles.css), so a chart follows the test mode's accent and the system font. */
function pageLook(el: HTMLElement): { color: string; family: string; muted: string } {
  const style = getComputedStyle(el);
  return {
    color: style.getPropertyValue('--chart').trim() || '#1d4ed8',
    muted: style.getPropertyValue('--muted').trim() || '#4b5563',
    family: style.fontFamily,
  };
}

/**
 * A small chart of one figure a day, drawn by Chart.js on a canvas: no markup or stylesheet is injected, so it lives
 * within the dashboard's Content-Security-Policy (`style-src 'self'`). The canvas follows its box's width (a
 * ResizeObserver in Chart.js); styles.css gives the box its height and caps the canvas at the box, so a resize never
 * makes anything scroll sideways even for the moment before the chart redraws.
 */
export function DayChart({ kind, summary, labels, values, tick, tooltip, max, testId }: DayChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // The formatters change with every render; the chart reads the latest through refs rather than being rebuilt.
  const formatters = useRef({ tick, tooltip });
  formatters.current = { tick, tooltip };
  const data = JSON.stringify([kind, labels, values, max]);
  useEffect(() => {
    const el = canvas.current;
    if (!el) return undefined;
    const look = pageLook(el);
    const chart = new Chart(el, {
      type: kind,
      data: {
        labels: [...labels],
        datasets: [{ data: [...values], backgroundColor: look.color, borderColor: look.color, pointRadius: 2, spanGaps: false }],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        font: { family: look.family },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => formatters.current.tooltip(item.dataIndex) } },
        },
        scales: {
          x: { ticks: { color: look.muted, maxRotation: 0, autoSkip: true, maxTicksLimit: 6 }, grid: { display: false } },
          y: {
            beginAtZero: true,
            ...(max === undefined ? {} : { max }),
            ticks: { color: look.muted, maxTicksLimit: 5, precision: 0, callback: (value) => formatters.current.tick(Number(value)) },
          },
        },
      },
    });
    return () => chart.destroy();
    // `data` stands for kind, labels, values and max: arrays made anew each render must not rebuild the chart.
  }, [data]);
  return (
    <div class="chart-box">
      <canvas ref={canvas} role="img" aria-label={summary} data-testid={testId} />
    </div>
  );
}
