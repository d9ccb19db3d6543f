// The catalog tool-search.bench.ts searches: about a thousand tools of the kinds a company connects
// (code hosting, tickets, chat, CRM, payments, files, calendars, monitoring …), each service's objects
// with the verbs its API has, described as their MCP servers describe them; and fifty requests, each
// worded as a person would ask, with the one tool that does it.
import { defineTool, type ToolDefinition } from '../src/index.js';

interface Service {
  readonly toolset: string;
  readonly name: string;
  readonly objects: readonly (readonly [string, string])[];
}

/** Services and their objects: `[name, what it is]`. */
const SERVICES: readonly Service[] = [
  {
    toolset: 'github',
    name: 'GitHub',
    objects: [
      ['issue', 'a bug report or task'],
      ['pull_request', 'proposed code changes'],
      ['repository', 'a code repository'],
      ['branch', 'a line of commits'],
      ['release', 'a tagged version'],
      ['workflow_run', 'a CI run'],
      ['comment', 'a comment on an issue'],
    ],
  },
  {
    toolset: 'jira',
    name: 'Jira',
    objects: [
      ['ticket', 'a work item'],
      ['sprint', 'a sprint of the board'],
      ['epic', 'a large body of work'],
      ['board', 'a scrum board'],
      ['worklog', 'time logged on a ticket'],
      ['version', 'a fix version'],
    ],
  },
  {
    toolset: 'slack',
    name: 'Slack',
    objects: [
      ['message', 'a message in a channel'],
      ['channel', 'a conversation channel'],
      ['user_group', 'a user group'],
      ['reminder', 'a reminder'],
      ['file', 'a shared file'],
      ['reaction', 'an emoji reaction'],
    ],
  },
  {
    toolset: 'salesforce',
    name: 'Salesforce',
    objects: [
      ['lead', 'a sales lead'],
      ['opportunity', 'a sales opportunity'],
      ['account', 'a customer account'],
      ['contact', 'a contact person'],
      ['case', 'a support case'],
      ['campaign', 'a marketing campaign'],
    ],
  },
  {
    toolset: 'stripe',
    name: 'Stripe',
    objects: [
      ['payment_intent', 'a payment'],
      ['refund', 'money returned to a customer'],
      ['customer', 'a paying customer'],
      ['subscription', 'a recurring plan'],
      ['invoice', 'a bill'],
      ['payout', 'money sent to the bank'],
      ['coupon', 'a discount code'],
    ],
  },
  {
    toolset: 'zendesk',
    name: 'Zendesk',
    objects: [
      ['support_ticket', 'a customer request'],
      ['macro', 'a canned reply'],
      ['satisfaction_rating', 'a customer rating'],
      ['organization', 'a customer organization'],
      ['article', 'a help center article'],
    ],
  },
  {
    toolset: 'gdrive',
    name: 'Google Drive',
    objects: [
      ['document', 'a text document'],
      ['spreadsheet', 'a sheet of cells'],
      ['folder', 'a folder of files'],
      ['permission', 'who may open a file'],
      ['presentation', 'a slide deck'],
    ],
  },
  {
    toolset: 'calendar',
    name: 'Google Calendar',
    objects: [
      ['event', 'a meeting or appointment'],
      ['calendar', 'a calendar'],
      ['attendee', 'a person invited'],
      ['free_busy', 'when people are free'],
    ],
  },
  {
    toolset: 'gmail',
    name: 'Gmail',
    objects: [
      ['email', 'an e-mail message'],
      ['draft', 'an unsent e-mail'],
      ['label', 'a mail label'],
      ['thread', 'a conversation of e-mails'],
      ['filter', 'a mail filter'],
    ],
  },
  {
    toolset: 'notion',
    name: 'Notion',
    objects: [
      ['page', 'a wiki page'],
      ['database', 'a table of pages'],
      ['block', 'a block of content'],
      ['workspace_member', 'a member of the workspace'],
    ],
  },
  {
    toolset: 'linear',
    name: 'Linear',
    objects: [
      ['linear_issue', 'an engineering task'],
      ['cycle', 'an iteration'],
      ['project', 'a project'],
      ['team', 'an engineering team'],
      ['label_group', 'labels of issues'],
    ],
  },
  {
    toolset: 'shopify',
    name: 'Shopify',
    objects: [
      ['product', 'an item for sale'],
      ['order', 'a customer order'],
      ['inventory_level', 'stock on hand'],
      ['discount', 'a price reduction'],
      ['fulfillment', 'a shipment of an order'],
      ['collection', 'a group of products'],
    ],
  },
  {
    toolset: 'twilio',
    name: 'Twilio',
    objects: [
      ['sms', 'a text message to a phone'],
      ['call', 'a phone call'],
      ['phone_number', 'a phone number'],
      ['recording', 'a call recording'],
    ],
  },
  {
    toolset: 's3',
    name: 'Amazon S3',
    objects: [
      ['bucket', 'a storage bucket'],
      ['object', 'a stored object'],
      ['presigned_url', 'a temporary download link'],
      ['lifecycle_rule', 'when objects expire'],
    ],
  },
  {
    toolset: 'postgres',
    name: 'PostgreSQL',
    objects: [
      ['table', 'a database table'],
      ['query_plan', 'how a query runs'],
      ['index', 'a table index'],
      ['role', 'a database role'],
      ['backup', 'a database backup'],
    ],
  },
  {
    toolset: 'datadog',
    name: 'Datadog',
    objects: [
      ['monitor', 'an alerting monitor'],
      ['dashboard', 'a metrics dashboard'],
      ['metric', 'a time series'],
      ['log_query', 'a log search'],
      ['incident', 'an ongoing incident'],
      ['slo', 'a service level objective'],
    ],
  },
  {
    toolset: 'pagerduty',
    name: 'PagerDuty',
    objects: [
      ['alert', 'a page to the on-call'],
      ['on_call_schedule', 'who is on call'],
      ['escalation_policy', 'who is paged next'],
      ['service', 'a monitored service'],
    ],
  },
  {
    toolset: 'confluence',
    name: 'Confluence',
    objects: [
      ['wiki_page', 'a wiki page'],
      ['space', 'a wiki space'],
      ['attachment', 'a file on a page'],
      ['page_comment', 'a comment on a page'],
    ],
  },
  {
    toolset: 'hubspot',
    name: 'HubSpot',
    objects: [
      ['deal', 'a deal in the pipeline'],
      ['company', 'a company record'],
      ['marketing_email', 'a marketing e-mail'],
      ['form', 'a web form'],
      ['workflow', 'an automation'],
    ],
  },
  {
    toolset: 'workday',
    name: 'Workday',
    objects: [
      ['employee', 'an employee record'],
      ['time_off_request', 'a leave request'],
      ['position', 'an open position'],
      ['expense_report', 'an expense claim'],
      ['payslip', 'a pay statement'],
    ],
  },
  {
    toolset: 'docusign',
    name: 'DocuSign',
    objects: [
      ['envelope', 'documents sent for signature'],
      ['template', 'a reusable envelope'],
      ['signer', 'a person who signs'],
    ],
  },
  {
    toolset: 'kubernetes',
    name: 'Kubernetes',
    objects: [
      ['pod', 'a running container group'],
      ['deployment', 'a rolling deployment'],
      ['namespace', 'a cluster namespace'],
      ['config_map', 'configuration values'],
      ['secret', 'a stored secret'],
      ['node', 'a cluster machine'],
    ],
  },
];

/** Verbs, each with the description's wording and the read-only hint. */
const VERBS: readonly (readonly [string, (object: string, what: string, service: string) => string, boolean])[] = [
  ['create', (o, w, s) => `Creates a new ${o} (${w}) in ${s}.`, false],
  ['get', (o, w, s) => `Gets one ${o} (${w}) from ${s} by its id.`, true],
  ['list', (o, w, s) => `Lists the ${o}s (${w}) in ${s}, newest first, with filters.`, true],
  ['update', (o, w, s) => `Updates fields of an existing ${o} (${w}) in ${s}.`, false],
  ['delete', (o, w, s) => `Deletes a ${o} (${w}) from ${s}; this cannot be undone.`, false],
  ['search', (o, w, s) => `Searches ${s} ${o}s (${w}) by text.`, true],
  ['archive', (o, w, s) => `Archives a ${o} (${w}) in ${s} so it no longer shows.`, false],
  ['export', (o, w, s) => `Exports ${s} ${o}s (${w}) as CSV.`, true],
];

const words = (name: string) => name.replaceAll('_', ' ');

/** About a thousand tools by toolset. */
export function generatedCatalog(): Record<string, ToolDefinition[]> {
  const catalog: Record<string, ToolDefinition[]> = {};
  for (const service of SERVICES) {
    catalog[service.toolset] = service.objects.flatMap(([object, what]) =>
      VERBS.map(([verb, describe, readOnly]) =>
        defineTool({
          name: `${verb}_${object}`,
          description: describe(words(object), what, service.name),
          input: {
            type: 'object',
            properties: {
              ...(verb === 'create' || verb === 'update'
                ? { fields: { type: 'object', description: `The ${words(object)}'s fields` } }
                : {}),
              ...(verb === 'list' || verb === 'search' || verb === 'export'
                ? { query: { type: 'string', description: 'Text to match' }, limit: { type: 'integer' } }
                : { id: { type: 'string', description: `The ${words(object)} id` } }),
            },
            additionalProperties: false,
          },
          annotations: { readOnly },
          run: () => 'ok',
        }),
      ),
    );
  }
  return catalog;
}

/** Fifty requests as people word them, and the tool (`toolset/tool`) each needs. */
export const REQUESTS: readonly (readonly [string, string])[] = [
  ['open a GitHub issue about the login bug', 'github/create_issue'],
  ['merge request: list the open pull requests on GitHub', 'github/list_pull_request'],
  ['cut a new GitHub release for version 2.3', 'github/create_release'],
  ['what failed in the last CI workflow run', 'github/get_workflow_run'],
  ['file a Jira ticket for the broken checkout', 'jira/create_ticket'],
  ['log two hours of work on the Jira ticket', 'jira/create_worklog'],
  ['post a message in the #support Slack channel', 'slack/create_message'],
  ['set a Slack reminder for tomorrow', 'slack/create_reminder'],
  ['find Slack messages that mention the outage', 'slack/search_message'],
  ['add a new sales lead to Salesforce', 'salesforce/create_lead'],
  ['update the stage of the Salesforce opportunity', 'salesforce/update_opportunity'],
  ['refund the customer for the damaged mug', 'stripe/create_refund'],
  ['cancel the Stripe subscription of this customer', 'stripe/delete_subscription'],
  ['show the invoice for March', 'stripe/get_invoice'],
  ['create a 10% off coupon code', 'stripe/create_coupon'],
  ['list recent payouts to our bank', 'stripe/list_payout'],
  ['reply to the Zendesk support ticket', 'zendesk/update_support_ticket'],
  ['search help center articles about passwords', 'zendesk/search_article'],
  ['create a spreadsheet in Google Drive for the budget', 'gdrive/create_spreadsheet'],
  ['share the document with finance (permissions)', 'gdrive/create_permission'],
  ['schedule a meeting with Dana on Friday', 'calendar/create_event'],
  ['when is everyone free next week', 'calendar/get_free_busy'],
  ['send an email to the customer', 'gmail/create_email'],
  ['find the email thread about the contract', 'gmail/search_thread'],
  ['write a Notion page with the meeting notes', 'notion/create_page'],
  ['query the Notion database of projects', 'notion/search_database'],
  ['create a Linear issue for the engineering team', 'linear/create_linear_issue'],
  ['what is in the current Linear cycle', 'linear/get_cycle'],
  ['add a new product to the Shopify store', 'shopify/create_product'],
  ['how much stock do we have (inventory levels)', 'shopify/list_inventory_level'],
  ['ship the order: create a fulfillment', 'shopify/create_fulfillment'],
  ['text the customer by SMS that the parcel left', 'twilio/create_sms'],
  ['make a temporary download link for the S3 file', 's3/create_presigned_url'],
  ['delete the old S3 bucket', 's3/delete_bucket'],
  ['explain the query plan of this SQL', 'postgres/get_query_plan'],
  ['take a backup of the Postgres database', 'postgres/create_backup'],
  ['mute the Datadog monitor during the deploy', 'datadog/update_monitor'],
  ['search the logs for 500 errors in Datadog', 'datadog/search_log_query'],
  ['declare an incident for the outage', 'datadog/create_incident'],
  ['who is on call right now', 'pagerduty/get_on_call_schedule'],
  ['page the on-call engineer with an alert', 'pagerduty/create_alert'],
  ['attach the diagram to the Confluence page', 'confluence/create_attachment'],
  ['move the HubSpot deal to closed won', 'hubspot/update_deal'],
  ['request time off for next week in Workday', 'workday/create_time_off_request'],
  ['submit my expense report for the trip', 'workday/create_expense_report'],
  ['send the contract for signature with DocuSign', 'docusign/create_envelope'],
  ['restart the crashed pod in Kubernetes', 'kubernetes/delete_pod'],
  ['roll out the new deployment', 'kubernetes/update_deployment'],
  ['read a file from the project folder', 'files/read_text_file'],
  ['remember that Dana prefers e-mail (knowledge graph)', 'memory/create_entities'],
];
