/**
 * `rxkube/webhook`: admission (mutating, validating) and conversion webhooks, the HTTPS server a
 * manager runs them in, and the manifests that register them.
 *
 * @module rxkube/webhook
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { mutatingWebhook, validatingWebhook } from './admission-webhook.js';
export type { AdmissionAnswer, AdmissionContext, AdmissionWebhook, AdmissionWebhookBase, AdmissionWebhookOptions, MutatingWebhook, MutatingWebhookOptions, ValidatingWebhook, ValidatingWebhookOptions } from './admission-webhook.js';
export { allow, deny } from './admission-verdict.js';
export type { AdmissionVerdict } from './admission-verdict.js';
export type { AdmissionOperation, AdmissionRequest, AdmissionReviewVersion, AdmissionUserInfo, GroupVersionKind, GroupVersionResource } from './admission-review.js';
export { conversionWebhook, spoke } from './conversion-webhook.js';
export type { ConversionWebhook, ConversionWebhookOptions, SpokeConverter } from './conversion-webhook.js';
export { reviewAdmission } from './review-admission.js';
export type { AdmissionOutcome, ReviewEnvironment } from './review-admission.js';
export { reviewConversion } from './review-conversion.js';
export type { ConversionOutcome } from './review-conversion.js';
export { webhookServer } from './webhook-server.js';
export type { Webhook, WebhookServer, WebhookServerOptions } from './webhook-server.js';
export type { CertificatePair, WebhookTlsOptions } from './certificate-watcher.js';
export { crdConversion, crdNameOf, webhookConfigurations, webhookManifest } from './webhook-manifests.js';
export type { WebhookClientTarget, WebhookManifestOptions } from './webhook-manifests.js';
export { WebhookBodyTooLargeError, WebhookConfigError, WebhookHandlerError, WebhookHandlerTimeoutError, WebhookReviewError, WebhookTlsError } from './webhook-errors.js';
