/** One snapshot of a candidate: whether it leads, and the holder it last observed. */
export interface LeaderElectionState {
  /** True from a successful acquire until the renew deadline passes without a renewal (or loss/stop). */
  readonly leading: boolean;
  /** The observed holder of the lease (`undefined` when free or not yet observed). */
  readonly leader: string | undefined;
}
