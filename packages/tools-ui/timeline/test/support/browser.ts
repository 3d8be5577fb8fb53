import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

/**
 * Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it when it is missing).
 * `DSH_CHROMIUM` names another build (say, on a laptop). No browser is ever downloaded.
 */
export const CHROMIUM = process.env.DSH_CHROMIUM ?? '/usr/bin/chromium'

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export interface Browser {
  readonly context: BrowserContext
  /** Closes the browser and removes its profile. */
  close(): Promise<void>
}

/** A headless Chromium on a new, empty profile directory. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set DSH_CHROMIUM to a Chromium binary`,
    )
  const profile = mkdtempSync(join(tmpdir(), 'dsh-timeline-profile-'))
  try {
    // launchPersistentContext is the way to give Chromium a profile directory of our choosing
    // (Playwright refuses a --user-data-dir flag in `args`).
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
      offline: true,
    })
    return {
      context,
      close: async () => {
        try {
          await context.close()
        } finally {
          rmSync(profile, { recursive: true, force: true })
        }
      },
    }
  } catch (error) {
    rmSync(profile, { recursive: true, force: true })
    throw error
  }
}

/** What a page did that a safe page must not: dialogs, errors, console messages, requests. */
export interface PageWatch {
  readonly dialogs: string[]
  readonly errors: string[]
  readonly console: string[]
  readonly requests: string[]
}

/** Opens `url` in a new page, recording everything `PageWatch` lists from the first moment. */
export async function openWatched(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; watch: PageWatch }> {
  const page = await context.newPage()
  const watch: PageWatch = { dialogs: [], errors: [], console: [], requests: [] }
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  page.on('pageerror', (error) => watch.errors.push(error.message))
  page.on('console', (message) => watch.console.push(`${message.type()}: ${message.text()}`))
  page.on('request', (request) => watch.requests.push(request.url()))
  await page.goto(url, { waitUntil: 'load' })
  return { page, watch }
}
