import {
  OutboundCallError,
  OutboundHttpsClient,
  retryAfterSeconds,
  type OutboundHttpsOptions,
} from '../../outbound-https';
import { storableText } from '../../stored-text';

/** The interface's limits on one webhook call. */
export const WEBHOOK_CALL_TIMEOUT_MS = 5000;
export const WEBHOOK_MAX_REDIRECTS = 3;
/** Bytes of a response body read and kept; the rest is discarded. */
export const WEBHOOK_RESPONSE_BODY_LIMIT = 16 * 1024;

/** What one call (all its redirect hops) came to. `error` is set for every failed call. */
export interface WebhookCallResult {
  successful: boolean;
  /** The final response's status code; null when no response arrived. */
  responseCode: number | null;
  contentType: string | null;
  /**
   * The start of the final response's body (at most WEBHOOK_RESPONSE_BODY_LIMIT bytes read), as
   * storable text (storableText: no NUL, valid UTF-8).
   */
  responseBody: string | null;
  errorMessage: string | null;
  /** Seconds asked for by a `Retry-After` on a 429 or 503 answer. */
  retryAfterSeconds: number | null;
  durationMs: number;
}

export interface WebhookHttpClientOptions extends OutboundHttpsOptions {
  timeoutMs?: number;
}

/**
 * POSTs webhook calls the way the interface's delivery rules say, through Laurel's outbound HTTPS
 * client (src/outbound-https.ts: HTTPS only, trusted certificates, every redirect hop re-checked
 * against the SSRF rule): at most 3 redirects (same method and body), one deadline for the whole
 * call, a bounded response body.
 */
export class WebhookHttpClient {
  private constructor(
    private readonly client: OutboundHttpsClient,
    private readonly timeoutMs: number,
  ) {}

  static async create(options: WebhookHttpClientOptions): Promise<WebhookHttpClient> {
    return new WebhookHttpClient(
      await OutboundHttpsClient.create(options),
      options.timeoutMs ?? WEBHOOK_CALL_TIMEOUT_MS,
    );
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<WebhookCallResult> {
    const started = Date.now();
    const finish = (
      fields: Omit<WebhookCallResult, 'durationMs' | 'retryAfterSeconds'>,
      retryAfterSeconds: number | null = null,
    ) => ({ ...fields, retryAfterSeconds, durationMs: Date.now() - started });
    try {
      const response = await this.client.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
        timeoutMs: this.timeoutMs,
        maxRedirects: WEBHOOK_MAX_REDIRECTS,
        bodyLimit: WEBHOOK_RESPONSE_BODY_LIMIT,
      });
      const { status } = response;
      const contentType = response.headers['content-type'];
      const successful = status >= 200 && status < 300;
      return finish(
        {
          successful,
          responseCode: status,
          contentType: contentType === undefined ? null : storableText(contentType),
          // What a receiver answers is stored and shown: sanitised here, where it is read, for every kind of call.
          responseBody: storableText(response.body),
          errorMessage: successful ? null : `receiver answered HTTP ${status}`,
        },
        retryAfterSeconds(response),
      );
    } catch (error) {
      if (!(error instanceof OutboundCallError)) throw error;
      return finish({
        successful: false,
        responseCode: null,
        contentType: null,
        responseBody: null,
        errorMessage: storableText(error.message),
      });
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
