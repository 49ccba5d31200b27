import { z } from 'zod';

/** A Prometheus duration as the Prometheus Operator's CRD accepts it (`30s`, `1m`). */
const duration = z.string().regex(/^(0|(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?)$/, { message: 'is not a Prometheus duration' });
const stringMap = z.record(z.string(), z.string());
const labelSelector = z.strictObject({
  matchLabels: stringMap.optional(),
  matchExpressions: z
    .array(
      z.strictObject({ key: z.string().min(1), operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: z.array(z.string()).optional() }),
    )
    .optional(),
});

const endpoint = z.strictObject({
  port: z.string().min(1).optional(),
  targetPort: z.union([z.string(), z.number().int()]).optional(),
  path: z.string().startsWith('/').optional(),
  scheme: z.enum(['http', 'https']).optional(),
  interval: duration.optional(),
  scrapeTimeout: duration.optional(),
  honorLabels: z.boolean().optional(),
});

const schema = z.object({
  apiVersion: z.literal('monitoring.coreos.com/v1'),
  kind: z.literal('ServiceMonitor'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().optional(), labels: stringMap.optional() }),
  spec: z.strictObject({
    jobLabel: z.string().optional(),
    selector: labelSelector,
    namespaceSelector: z.strictObject({ any: z.boolean().optional(), matchNames: z.array(z.string()).optional() }).optional(),
    endpoints: z.array(endpoint).min(1),
  }),
});

export type ServiceMonitorObject = z.infer<typeof schema>;

/**
 * kubernetes-models has no model for the Prometheus Operator's ServiceMonitor (a CRD), so this mirrors the
 * fields of its CRD schema these manifests use (unknown ones are refused), in the shape of a kubernetes-models class.
 */
export class ServiceMonitor {
  constructor(private readonly data: unknown) {}

  validate(): void {
    const parsed = schema.safeParse(this.data);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
}
