// `selfsigned` (with its X.509 and crypto libraries, about a third of this package's import time)
// is loaded by the first generation, not on import: most test files start no TLS server.
const loadSelfsigned = () => import('selfsigned');

/** A server certificate, its key, and the CA that signed it (all PEM). */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

/**
 * Generates, at start, a throw-away CA and a server certificate for `localhost`, `127.0.0.1` and
 * `::1` signed by it, so clients exercise their real CA verification path.
 */
export async function generateTlsMaterial(): Promise<TlsMaterial> {
  const { generate } = await loadSelfsigned();
  const days = 7;
  const notAfterDate = new Date(Date.now() + days * 86_400_000);
  const ca = await generate([{ name: 'commonName', value: 'rxkube-embedded-ca' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'rxkube-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: leaf.cert, key: leaf.private, ca: ca.cert };
}

let processMaterial: Promise<TlsMaterial> | undefined;

/**
 * The TLS material of every embedded server this process starts with `tls: true`: generated once
 * (key generation is most of a TLS server's start-up) and reused; a failed generation is retried
 * by the next server. Call {@link generateTlsMaterial} for material of one's own.
 */
export function embeddedServerTlsMaterial(): Promise<TlsMaterial> {
  if (processMaterial === undefined) {
    const pending = generateTlsMaterial();
    processMaterial = pending;
    pending.catch(() => {
      if (processMaterial === pending) processMaterial = undefined;
    });
  }
  return processMaterial;
}
