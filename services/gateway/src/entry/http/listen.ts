import type { Server } from 'node:http';
import type { AddressInfo, ListenOptions } from 'node:net';

/**
 * Starts `server` listening; resolves with the port it got, rejects when it cannot (the port is taken). With
 * `reusePort`, several processes of one host may listen on the same port and the kernel spreads connections among
 * them (SO_REUSEPORT, Linux): gateway replicas on a VM without a balancer in front.
 */
export function listen(server: Server, options: ListenOptions & { port: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
