/**
 * The default rule set and its adjustments (docs/design.md §5, "Secrets by rule"): each family
 * redacts where a credential travels, and what replay and receipts need stays: A2A task states
 * (`status.state`), task and context ids, resume-token placeholders, page cursors and the card's
 * scheme and URL fields. Each `record` flag moves one name across the rule.
 */
import { describe, expect, it } from 'vitest';
import { RedactionMarks, standsForLive } from '../../src/recording/redaction-mark.js';
import { Redactor, isSecretJsonKey } from '../../src/recording/redaction.js';
import { adjustSecretRules } from '../../src/recording/secret-rules.js';

const marks = new RedactionMarks(Buffer.alloc(32, 9));
const m = (value: string): string => marks.mark(value);
const redactor = new Redactor(marks);

describe('the default rule set', () => {
  it('marks the credential members of a body at any depth and keeps what A2A needs', () => {
    const body = {
      jsonrpc: '2.0',
      id: 3,
      result: {
        task: {
          id: 'task-1',
          contextId: 'ctx-1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED' },
          metadata: { deep: [{ api_key: 'k1', accessToken: 'a1', client_secret: 's1', pin: 1234 }] },
        },
        pause: { resumeToken: 'a2a-replay:resume-token:sha256:00', state: 'paused' },
        nextPageToken: 'cursor-2',
        pushNotificationConfig: { token: 'push-1', authentication: { schemes: ['Bearer'], credentials: 'cr-1' } },
      },
    };
    expect(redactor.json(structuredClone(body))).toEqual({
      ...body,
      result: {
        ...body.result,
        task: {
          ...body.result.task,
          metadata: { deep: [{ api_key: m('k1'), accessToken: m('a1'), client_secret: m('s1'), pin: m('1234') }] },
        },
        pushNotificationConfig: { token: m('push-1'), authentication: { schemes: ['Bearer'], credentials: m('cr-1') } },
      },
    });
  });

  it('keeps the agent card fields that name schemes and endpoints, not secrets', () => {
    for (const name of ['apiKeySecurityScheme', 'tokenUrl', 'securitySchemes', 'bearerFormat', 'state', 'taskId'])
      expect(isSecretJsonKey(name), name).toBe(false);
    for (const name of [
      'api_key',
      'apikey',
      'refresh_token',
      'private_key',
      'password',
      'webhookSecret',
      'db.password',
    ])
      expect(isSecretJsonKey(name), name).toBe(true);
  });

  it('marks URL user-info and credential query values in URL-valued headers and JSON strings', () => {
    const headers = redactor.headers({
      referer: 'https://u:p@app.example/cb?code=C1&lang=en',
      link: '<https://h.example/p?access_token=T1>; rel="next"',
      'x-pin': '0000',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(headers).toEqual({
      referer: `https://${encodeURIComponent(m('u:p'))}@app.example/cb?code=${encodeURIComponent(m('C1'))}&lang=en`,
      link: `<https://h.example/p?access_token=${encodeURIComponent(m('T1'))}>; rel="next"`,
      'x-pin': m('0000'),
      'content-type': 'application/json; charset=utf-8',
    });
    expect(redactor.json('see https://s3.example/o?X-Amz-Signature=S1&X-Amz-Expires=60')).toBe(
      `see https://s3.example/o?X-Amz-Signature=${encodeURIComponent(m('S1'))}&X-Amz-Expires=60`,
    );
    // the HTTP+JSON ListTasks cursor is sent back by replay: kept
    expect(redactor.path('/tasks?pageToken=P1&pageSize=5&access_token=A1')).toBe(
      `/tasks?pageToken=P1&pageSize=5&access_token=${encodeURIComponent(m('A1'))}`,
    );
    // a header that is no credential, and a word inside a longer one, stay
    expect(redactor.isSecretHeader('x-shipping-id')).toBe(false);
    expect(redactor.isSecretHeader('x-compat')).toBe(false);
  });

  it('marks credential members in a body kept as text, also one the cap cut', () => {
    expect(redactor.bodyText('{"a":1,"password":"pw1","state":"x","client_secret":"cut-her')).toBe(
      `{"a":1,"password":"${m('pw1')}","state":"x","client_secret":"${m('cut-her')}`,
    );
  });

  it('lets a recorded mark stand for the live value only where the mark stands', () => {
    expect(standsForLive(m('k1'), 'anything')).toBe(true);
    const url = `https://h/p?sig=${encodeURIComponent(m('s'))}&x=1`;
    expect(standsForLive(url, 'https://h/p?sig=live&x=1')).toBe(true);
    expect(standsForLive(url, 'https://h/p?sig=live&x=2')).toBe(false);
    expect(standsForLive('plain', 'plain2')).toBe(false);
  });
});

describe('adjustments', () => {
  it('a flag redacts a name the set itself keeps', () => {
    const adjusted = new Redactor(
      marks,
      adjustSecretRules({ redactQuery: ['PageToken'], redactJsonKeys: ['page_token'] }),
    );
    expect([redactor.isSecretQueryName('pageToken'), adjusted.isSecretQueryName('pageToken')]).toEqual([false, true]);
    expect([redactor.isSecretJsonKey('pageToken'), adjusted.isSecretJsonKey('pageToken')]).toEqual([false, true]);
  });

  it('each flag moves one name across the rule', () => {
    const adjusted = new Redactor(
      marks,
      adjustSecretRules({
        redact: ['X-Tenant'],
        keepHeaders: ['X-Pin'],
        redactQuery: ['tenant'],
        keepQuery: ['state'],
        redactJsonKeys: ['customer_ref'],
        keepJsonKeys: ['webhookToken'],
      }),
    );
    expect([redactor.isSecretHeader('x-tenant'), adjusted.isSecretHeader('x-tenant')]).toEqual([false, true]);
    expect([redactor.isSecretHeader('x-pin'), adjusted.isSecretHeader('x-pin')]).toEqual([true, false]);
    expect([redactor.isSecretQueryName('Tenant'), adjusted.isSecretQueryName('Tenant')]).toEqual([false, true]);
    expect([redactor.isSecretQueryName('state'), adjusted.isSecretQueryName('state')]).toEqual([true, false]);
    expect([redactor.isSecretJsonKey('customerRef'), adjusted.isSecretJsonKey('customerRef')]).toEqual([false, true]);
    expect([redactor.isSecretJsonKey('webhook_token'), adjusted.isSecretJsonKey('webhook_token')]).toEqual([
      true,
      false,
    ]);
  });
});
