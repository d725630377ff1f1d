/**
 * The wall clock in kube-apiserver's timestamp format (RFC 3339, whole seconds, UTC:
 * `2026-01-01T00:00:00Z`), as `creationTimestamp` and `managedFields[].time` carry it. Formatted
 * once per second: the write path asks for it on every write.
 */
let second = Number.NaN;
let formatted = '';

/** Now, to the second: `2026-01-01T00:00:00Z`. */
export function nowSeconds(): string {
  const ms = Date.now();
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    second = s;
    formatted = new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return formatted;
}
