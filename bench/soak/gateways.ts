import { Agent, request } from 'node:http';

/** What one HTTP request came to: a status, or a network error class (ECONNREFUSED, ECONNRESET, timeout, …). */
export interface Outcome {
  status?: number;
  error?: string;
  body?: string;
  gateway: number;
}

const REQUEST_TIMEOUT_MS = 30_000;
/**
 * An idle kept-alive connection is dropped by the generator after this long, well before the gateway drops
 * it (Node's 5 s, plus its 1 s grace): as a load balancer's upstream idle timeout must be shorter than the
 * backend's, or it now and then sends a request down a connection the backend is closing (a reset).
 */
const IDLE_CONNECTION_MS = 2000;

/**
 * The generator's load balancer over the gateway replicas: round-robin over those in rotation, one
 * keep-alive agent per gateway, as an ingress would hold them.
 */
export class Gateways {
  private readonly agents: Agent[];
  private readonly inRotation: boolean[];
  private next = 0;

  constructor(private readonly ports: readonly number[]) {
    this.agents = ports.map(() => new Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }));
    this.inRotation = ports.map(() => true);
  }

  get urls(): string[] {
    return this.ports.map((p) => `http://127.0.0.1:${p}`);
  }

  remove(i: number): void {
    this.inRotation[i] = false;
  }

  add(i: number): void {
    this.inRotation[i] = true;
  }

  /** The next gateway in rotation (all of them out: the first, so the failure shows). */
  pick(): number {
    for (let k = 0; k < this.ports.length; k++) {
      const i = (this.next + k) % this.ports.length;
      if (this.inRotation[i]) {
        this.next = i + 1;
        return i;
      }
    }
    return 0;
  }

  send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Outcome> {
    const gateway = this.pick();
    return new Promise((resolve) => {
      let settled = false;
      const done = (o: Omit<Outcome, 'gateway'>): void => {
        if (settled) return;
        settled = true;
        resolve({ ...o, gateway });
      };
      const req = request(
        {
          host: '127.0.0.1',
          port: this.ports[gateway],
          method,
          path,
          agent: this.agents[gateway],
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
        },
      );
      req.on('timeout', () => {
        done({ error: 'timeout' });
        req.destroy();
      });
      req.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
      req.end(body);
    });
  }

  close(): void {
    for (const a of this.agents) a.destroy();
  }
}
