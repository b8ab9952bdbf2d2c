import type * as Playwright from 'playwright-core';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { capText } from '../../common/text.ts';
import { ConfigurationError, UpstreamError } from '../../errors.ts';
import { assertPublicUrl } from '../../http/public-address.ts';
import { exists } from '../../fs/probe.ts';
import { importOptional } from '../../optional-dependency.ts';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool, type BuiltinToolOptions } from './builtin-tool.ts';
import { shown } from './jail.ts';

/** Flags for a headless Chromium on a machine with no network beyond what the page needs. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export interface BrowseOptions extends BuiltinToolOptions {
  /** The Chromium to drive. Default: `CHROMIUM_PATH`, else the system Chromium (Debian: `apt-get install chromium`). */
  executablePath?: string;
  /** Allow loopback and private addresses (off by default). */
  allowPrivateNetworks?: boolean;
}

const step = z.object({
  action: z.enum(['click', 'fill', 'wait_for']),
  selector: z.string().min(1).describe('CSS selector, or text=... for visible text'),
  value: z.string().optional().describe('For fill: the text to type'),
});

const playwrightBrowseParameters = z.object({
  url: z.string().url(),
  steps: z.array(step).max(20).optional(),
  screenshot: z.boolean().optional().describe('Save a screenshot under the project root'),
});

/**
 * `playwright_browse`: opens a page in a real headless Chromium (playwright-core), performs steps
 * (click, fill, wait for a selector) and returns the title, final URL and the page's visible text,
 * optionally a screenshot saved under the project root.
 */
export class PlaywrightBrowseTool extends BuiltinTool<typeof playwrightBrowseParameters> {
  readonly name = 'playwright_browse';
  readonly description =
    'Open a web page in a real browser, optionally click, fill or wait for elements, and return its visible text.';
  readonly parameters = playwrightBrowseParameters;
  readonly #options: BrowseOptions;

  constructor(options: BrowseOptions = {}) {
    super(options);
    this.#options = options;
  }

  async run(context: ToolContext, args: z.infer<typeof playwrightBrowseParameters>): Promise<ToolOutput> {
    const { url, steps = [], screenshot } = args;
    await assertPublicUrl(new URL(url), this.#options.allowPrivateNetworks);
    const { chromium } = await importOptional<typeof Playwright>(
      'playwright-core',
      'The playwright_browse tool',
    );
    const browser = await chromium.launch({ executablePath: await this.#chromium(), args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.route('**/*', async (route) => {
        const target = new URL(route.request().url());
        if (target.protocol === 'data:' || target.protocol === 'blob:') return route.continue();
        try {
          await assertPublicUrl(target, this.#options.allowPrivateNetworks);
          await route.continue();
        } catch {
          await route.abort('blockedbyclient');
        }
      });
      const response = await page.goto(url, { timeout: 30_000, waitUntil: 'domcontentloaded' });
      if (response && response.status() >= 400)
        throw new UpstreamError(`${url} answered ${response.status()}.`, { status: response.status() });
      for (const { action, selector, value } of steps) {
        context.heartbeat();
        if (action === 'click') await page.click(selector, { timeout: 10_000 });
        else if (action === 'fill') await page.fill(selector, value ?? '', { timeout: 10_000 });
        else await page.waitForSelector(selector, { timeout: 10_000 });
      }
      const text = capText(await page.innerText('body'), 20_000).text;
      const metadata: Record<string, unknown> = { title: await page.title(), url: page.url() };
      if (screenshot) {
        const root = await this.root();
        const folder = join(root, 'screenshots');
        await mkdir(folder, { recursive: true });
        const file = join(folder, `${randomUUID()}.png`);
        await page.screenshot({ path: file, fullPage: true });
        metadata.screenshot = shown(root, file);
      }
      return { text: `# ${String(metadata.title)}\n${String(metadata.url)}\n\n${text}`, metadata };
    } finally {
      await browser.close();
    }
  }

  async #chromium(): Promise<string> {
    const configured = this.#options.executablePath ?? process.env.CHROMIUM_PATH;
    for (const path of configured ? [configured] : CANDIDATES) if (await exists(path)) return path;
    throw new ConfigurationError(
      'playwright_browse needs Chromium: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.',
    );
  }
}
