import { z } from 'zod';

/** A Prometheus duration as the Prometheus Operator's CRD accepts it (`15m`, `1h30m`, `0`). */
const duration = z.string().regex(/^(0|(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?)$/, { message: 'is not a Prometheus duration' });
const stringMap = z.record(z.string(), z.string());

const rule = z
  .strictObject({
    alert: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    record: z
      .string()
      .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/)
      .optional(),
    expr: z.string().min(1),
    for: duration.optional(),
    keep_firing_for: duration.optional(),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
  })
  .refine((r) => (r.alert === undefined) !== (r.record === undefined), { message: 'a rule is either an alert or a record' });

const schema = z.object({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('PrometheusRule'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().optional(), labels: stringMap.optional() }),
  spec: z.strictObject({
    groups: z.array(z.strictObject({ name: z.string().min(1), interval: duration.optional(), rules: z.array(rule).min(1) })).min(1),
  }),
});

export type PrometheusRuleObject = z.infer<typeof schema>;

/**
 * kubernetes-models has no model for the Prometheus Operator's PrometheusRule (a CRD), so this mirrors the
 * fields its CRD schema requires or restricts, in the shape of a kubernetes-models class.
 */
export class PrometheusRule {
  constructor(private readonly data: unknown) {}

  validate(): void {
    const parsed = schema.safeParse(this.data);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
}
