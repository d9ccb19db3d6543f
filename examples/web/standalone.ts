// docs/web-inbox.md "From your own code": the inbox served on its own, with notifications to Slack.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';

const wardrik = await Wardrik.create({ store: 'sqlite:.wardrik/wardrik.db' });

const web = wardrik.inboxWeb({
  // token: WARDRIK_WEB_TOKEN unless given, else generated (web.token)
  notify: {
    webhook: {
      url: process.env.SLACK_WEBHOOK_URL ?? 'http://127.0.0.1:9/',
      secret: process.env.WARDRIK_WEBHOOK_SECRET ?? 'change-me-to-a-long-secret',
    },
  },
});
const { url } = await web.listen({ host: '127.0.0.1', port: 8040 });
console.log(`The inbox is at ${url}`);
if (web.tokenGenerated) console.log(`Sign-in token: ${web.token}`);

process.once('SIGTERM', () => void wardrik.close()); // closes the page and the notifier too
