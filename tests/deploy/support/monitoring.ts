import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { stringify } from 'yaml';
import { ofKind, render } from './kustomize';
import type { PrometheusRuleObject } from './prometheus-rule';
import { readText } from './repo';

/** promtool from PROMTOOL or PATH; a clear failure when missing (Debian's `prometheus` package has it; .ci/run installs it). */
export function findPromtool(): string {
  const candidates = process.env.PROMTOOL ? [process.env.PROMTOOL] : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'promtool'));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next one
    }
  }
  throw new Error("promtool was not found (looked in PROMTOOL and PATH): install Debian's `prometheus` package (apt-get install prometheus).");
}

/** Runs promtool; resolves with its output, or throws with it when it exits non-zero. */
export function promtool(args: string[], cwd: string): string {
  try {
    return execFileSync(findPromtool(), args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`, { cause: e });
  }
}

export type Rule = PrometheusRuleObject['spec']['groups'][number]['rules'][number];

/** The rendered PrometheusRule of an overlay (there is one). */
export function prometheusRule(overlay: string): PrometheusRuleObject {
  const rules = ofKind<PrometheusRuleObject>(render(overlay), 'PrometheusRule');
  if (rules.length !== 1) throw new Error(`k8s/${overlay}: expected one PrometheusRule, found ${rules.length}`);
  return rules[0] as PrometheusRuleObject;
}

export const rulesOf = (rule: PrometheusRuleObject): Rule[] => rule.spec.groups.flatMap((g) => g.rules);

/** A PrometheusRule's groups as a Prometheus rule file (what the operator hands Prometheus). */
export const ruleFileText = (rule: PrometheusRuleObject): string => stringify({ groups: rule.spec.groups });

interface GrafanaPanel {
  title?: string;
  type?: string;
  targets?: { expr?: string }[];
  panels?: GrafanaPanel[];
}
export interface GrafanaDashboard {
  uid: string;
  title: string;
  panels: GrafanaPanel[];
  templating: { list: { name: string; query?: unknown; definition?: string }[] };
}

/** The dashboard JSON of an overlay's ConfigMap labelled for Grafana's sidecar. */
export function dashboards(overlay: string): { name: string; labels: Record<string, string>; dashboard: GrafanaDashboard }[] {
  return ofKind<{ metadata: { name: string; labels?: Record<string, string> }; data?: Record<string, string> }>(render(overlay), 'ConfigMap')
    .filter((c) => c.metadata.labels?.grafana_dashboard !== undefined)
    .flatMap((c) =>
      Object.values(c.data ?? {}).map((json) => ({
        name: c.metadata.name,
        labels: c.metadata.labels ?? {},
        dashboard: JSON.parse(json) as GrafanaDashboard,
      })),
    );
}

/** Every PromQL expression of a dashboard's panels (rows' nested panels too) and template queries. */
export function dashboardExpressions(dashboard: GrafanaDashboard): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  const visit = (panels: GrafanaPanel[]): void => {
    for (const p of panels) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ where: p.title ?? '(untitled)', expr: t.expr });
      visit(p.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const v of dashboard.templating.list)
    if (v.definition) out.push({ where: `variable ${v.name}`, expr: v.definition.replace(/^label_values\((.*), *\w+\)$/, '$1') });
  return out;
}

/** Grafana's variables replaced by values Prometheus accepts, so promtool can parse the expression. */
export const withoutGrafanaVariables = (expr: string): string => expr.replace(/\$__rate_interval/g, '5m').replace(/\$\{?(\w+)\}?/g, 'x');

const NOT_METRICS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/**
 * The metric names an expression reads: what is left once strings, label matchers, range and grouping
 * clauses, numbers and function calls are taken out. Recording-rule names (with a colon) are included.
 */
export function metricNames(expr: string): Set<string> {
  const stripped = withoutGrafanaVariables(expr)
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/g)) {
    const [, name, call] = m;
    if (!name || call || NOT_METRICS.has(name.toLowerCase())) continue;
    // The letters of a number (`1e3`) or a duration left outside brackets (`offset 5m`) follow a digit.
    const before = stripped[(m.index ?? 0) - 1];
    if (before !== undefined && /[0-9.]/.test(before)) continue;
    names.add(name);
  }
  return names;
}

/** The runbook section (GitHub anchor) docs/operations.md has for each heading. */
export function operationsAnchors(): Set<string> {
  const anchorOf = (heading: string): string =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replace(/ /g, '-');
  return new Set(
    readText('docs/operations.md')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );
}
