// parleyMeta reads what parley added to an ACP message (its _meta.parley), typed as
// parleyapi.ts declares it; undefined when parley added nothing.
export function parleyMeta<T>(msg: unknown): T | undefined {
  return (msg as { _meta?: { parley?: T } } | null | undefined)?._meta?.parley;
}
