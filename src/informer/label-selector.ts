import { compileLabelSelector, LabelSelectorError } from '../api/label-selector.js';
import { InformerConfigError } from './informer-errors.js';

/** A label selector: the string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h,n>3`) or match-labels. */
export type LabelSelector = string | Readonly<Record<string, string>>;

/** Tests a label set. */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

/**
 * Compiles a label selector for listers with the one parser the client and the embedded API server
 * share (Kubernetes syntax: `=`, `==`, `!=`, `in`, `notin`, exists `k`, not-exists `!k`, integer
 * `>`/`<`; terms are ANDed; a record is match-labels). An empty or absent selector matches
 * everything. Throws {@link InformerConfigError} (caused by a `LabelSelectorError`) on a malformed
 * selector.
 */
export function labelMatcher(selector: LabelSelector | undefined): LabelMatcher {
  if (selector === undefined) return () => true;
  try {
    return compileLabelSelector(typeof selector === 'string' ? selector : { matchLabels: selector });
  } catch (err) {
    if (err instanceof LabelSelectorError) throw new InformerConfigError(err.message, { cause: err, option: 'labelSelector' });
    throw err;
  }
}
