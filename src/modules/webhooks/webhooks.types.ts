import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An HTTPS endpoint that receives the account’s events once verified' })
export class WebhookInfo {
  @Field(() => Int)
  id!: number;

  @Field()
  url!: string;

  @Field(() => [String], { description: 'Subscribed events; empty: every event' })
  events!: string[];

  @Field({ description: 'True until verified (POST /webhook/:id/test), and again once deactivated' })
  disabled!: boolean;

  @Field({
    description:
      'When it was last disabled: its creation (a webhook starts disabled), a url change or a deactivation; kept once active again',
  })
  disabled_at!: Date;

  @Field()
  created_at!: Date;
}

@ObjectType({ description: 'One attempt of a webhook call and its outcome' })
export class WebhookLogEntry {
  @Field(() => ID, { description: 'Give it to retryWebhookLog to send the event again' })
  id!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The event’s payload (null for `test`)' })
  payload!: unknown;

  @Field(() => Int)
  webhook_id!: number;

  @Field()
  event!: string;

  @Field({ description: 'Stable across every attempt of the event (also the `webhook-id` header)' })
  idempotency_key!: string;

  @Field()
  url!: string;

  @Field(() => Int, { description: '1 for the first attempt of the event to this webhook' })
  attempt!: number;

  @Field()
  successful!: boolean;

  @Field(() => Int, { nullable: true })
  response_code!: number | null;

  @Field(() => String, { nullable: true })
  error_message!: string | null;

  @Field()
  created_at!: Date;
}

@ObjectType({ description: 'A page of a webhook’s logs, newest first' })
export class WebhookLogPage {
  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  page_size!: number;

  @Field(() => [WebhookLogEntry])
  data!: WebhookLogEntry[];
}

@ObjectType({ description: 'The account’s webhook signing secret' })
export class WebhookSecretPayload {
  @Field({ description: '`whsec_` + base64 of 32 bytes: the HMAC key of the signature headers' })
  webhook_secret!: string;

  @Field(() => Date, {
    nullable: true,
    description:
      'While the secret a rotation replaced still signs calls (POST /webhook/secret with `overlap_seconds`): when it stops. Absent (null) otherwise',
  })
  previous_secret_expires_at?: Date | null;
}
