export default async function globalTeardown(): Promise<void> {
  await globalThis.__LAUREL_TEST_PG__?.stop();
}
