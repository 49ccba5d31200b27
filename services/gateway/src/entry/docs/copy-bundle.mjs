// Part of the gateway's `npm run build`: copies Scalar's standalone browser bundle (a dev dependency) into
// dist/docs, which the gateway image ships with the rest of dist. The production install never holds
// @scalar/api-reference and its ~250 packages: the browser needs this one self-contained file, nothing else.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The package exports no path to its browser build; its main entry sits in the same dist folder.
const packageDist = dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference')));
const target = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist/docs');
mkdirSync(target, { recursive: true });
copyFileSync(join(packageDist, 'browser', 'standalone.js'), join(target, 'api-reference.js'));
