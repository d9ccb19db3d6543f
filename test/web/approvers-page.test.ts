import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { financeDesk, PEOPLE, token } from './finance-desk.js';
import { sqliteStores } from './helpers.js';

/** Debian's chromium package; a browser download is not reachable here. */
const CHROMIUM = process.env.WARDRIK_TEST_CHROMIUM ?? '/usr/bin/chromium';

const stores = sqliteStores();
let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
});
after(async () => {
  await browser?.close();
  stores.removeAll();
});

/** A person's own browser, signed in with their own token through the form. */
async function signedIn(base: string, who: string, id: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(base);
  await page.fill('input[name="token"]', token(who));
  await page.click('button[type="submit"]');
  await page.waitForSelector(`#pending [data-inbox-id="${id}"]`);
  return page;
}

describe('The inbox page shows each person what they may answer', () => {
  it('shows an item of another group, or asked for by the person, without buttons and says why', async () => {
    const desk = await financeDesk(stores.url(), { people: PEOPLE });
    try {
      const id = await desk.park('ana');
      for (const [who, why] of [
        ['bob', /Not yours to answer: bob is not in "finance-leads" \(their groups: support\)/],
        ['ana', /Not yours to answer: ana asked for this call, and may not answer it themselves/],
      ] as const) {
        const page = await signedIn(desk.base, who, id);
        const item = page.locator(`#pending [data-inbox-id="${id}"]`);
        assert.match((await item.locator('.not-yours').textContent()) ?? '', why, who);
        assert.match(
          (await item.locator('.not-yours').textContent()) ?? '',
          /Who may answer it: a person in "finance-leads"/,
        );
        assert.equal(await item.locator('button[type="submit"]').count(), 0, `${who} sees no answer buttons`);
        assert.equal(await item.locator('form').count(), 0, `${who} sees no answer forms`);
        await page.context().close();
      }
    } finally {
      await desk.close();
    }
  });

  it('lets a permitted person approve, shows the count toward the quorum, and the call runs after the second', async () => {
    const desk = await financeDesk(stores.url(), { people: PEOPLE });
    try {
      const id = await desk.park('ana');
      const carla = await signedIn(desk.base, 'carla', id);
      const item = carla.locator(`#pending [data-inbox-id="${id}"]`);
      assert.match((await item.locator('.who-may-answer').textContent()) ?? '', /2 such people must each approve/);
      assert.match((await item.locator('.approvals').textContent()) ?? '', /Approved so far: nobody \(0 of 2\)/);
      await item.locator('button.approve').click();
      await carla.waitForFunction(
        (itemId) =>
          (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document
            .querySelector(`#pending [data-inbox-id="${itemId}"] .approvals`)
            ?.textContent.includes('carla (1 of 2)') ?? false,
        id,
      );
      assert.deepEqual(desk.paid, []);
      const dave = await signedIn(desk.base, 'dave', id);
      await dave.locator(`#pending [data-inbox-id="${id}"] button.approve`).click();
      await dave.waitForSelector(`#answered [data-inbox-id="${id}"]`);
      await desk.node.runner.recover();
      assert.deepEqual(desk.paid, [700]);
      await carla.context().close();
      await dave.context().close();
    } finally {
      await desk.close();
    }
  });
});
