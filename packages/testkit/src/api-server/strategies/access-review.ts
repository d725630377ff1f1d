/** SelfSubjectAccessReviews: the strategy serves every request itself (JSON or protobuf body, 201 with the review's status). */
import { decodeAccessReviewProtobuf, selfSubjectAccessReview } from '../access-review.js';
import { parseJsonBody } from '../http-io.js';
import { unsupportedMediaType } from '../status-error.js';
import { strategy } from './default.js';
import type { StrategyHandler } from './strategy.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const review: StrategyHandler = async ({ req, method, r, user, authorizer, readBody }) => {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  const proto = type === PROTOBUF;
  if (type !== '' && type !== 'application/json' && type !== '*/*' && !proto) {
    req.resume();
    throw unsupportedMediaType(type);
  }
  const raw = method === 'POST' ? await readBody() : Buffer.alloc(0);
  const body = raw.length === 0 ? undefined : proto ? decodeAccessReviewProtobuf(raw) : parseJsonBody(raw, r);
  return { code: 201, body: selfSubjectAccessReview(method, body, user, authorizer) };
};

/** The strategy of `authorization.k8s.io` selfsubjectaccessreviews. */
export const SELF_SUBJECT_ACCESS_REVIEW_STRATEGY = strategy({ endpoint: review });
