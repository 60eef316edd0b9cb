import { MAX_WATERMARK, MIN_WATERMARK } from '../../core/messages.js';

/**
 * Merges the event time of several input channels: the combined watermark is
 * the minimum over the active channels, and never goes backwards.
 *
 * A channel that declares itself idle is left out until it sends data or a
 * watermark again. On return it rejoins the minimum only once its watermark has
 * caught up with the combined one (otherwise time would move backwards). When
 * every channel is idle, the consumer is idle too.
 */
export class WatermarkValve {
  private readonly watermarks: number[];
  private readonly idle: boolean[];
  private readonly aligned: boolean[];
  private current = MIN_WATERMARK;
  private allIdle = false;

  constructor(
    channelCount: number,
    private readonly onWatermark: (time: number) => void,
    private readonly onIdle: () => void,
  ) {
    this.watermarks = new Array<number>(channelCount).fill(MIN_WATERMARK);
    this.idle = new Array<boolean>(channelCount).fill(false);
    this.aligned = new Array<boolean>(channelCount).fill(true);
  }

  get combined(): number {
    return this.current;
  }

  /** The least watermark over `channels`, idle or not (an ended channel's is +infinity). */
  leastOf(channels: readonly number[]): number {
    let min = MAX_WATERMARK;
    for (const c of channels) if (this.watermarks[c]! < min) min = this.watermarks[c]!;
    return min;
  }

  /** Data arrived on a channel: an idle channel becomes active again. */
  activate(channel: number): void {
    if (!this.idle[channel]) return;
    this.idle[channel] = false;
    this.aligned[channel] = this.watermarks[channel]! >= this.current;
    this.allIdle = false;
  }

  watermark(channel: number, time: number): void {
    this.activate(channel);
    if (time <= this.watermarks[channel]!) return;
    this.watermarks[channel] = time;
    if (!this.aligned[channel] && time >= this.current) this.aligned[channel] = true;
    this.advance();
  }

  markIdle(channel: number): void {
    if (this.idle[channel]) return;
    this.idle[channel] = true;
    this.advance();
    if (!this.allIdle && this.idle.every((i, c) => i || this.watermarks[c] === MAX_WATERMARK)) {
      // Everyone is idle: what any channel has promised can be passed on, as
      // nothing older is pending anywhere.
      this.allIdle = true;
      let max = MIN_WATERMARK;
      for (const w of this.watermarks) if (w > max && w !== MAX_WATERMARK) max = w;
      if (max > this.current) {
        this.current = max;
        this.onWatermark(max);
      }
      this.onIdle();
    }
  }

  /** End of a channel counts as a watermark at +infinity. */
  end(channel: number): void {
    this.idle[channel] = false;
    this.aligned[channel] = true;
    this.watermarks[channel] = MAX_WATERMARK;
    this.advance();
  }

  private advance(): void {
    let min = MAX_WATERMARK;
    let any = false;
    for (let c = 0; c < this.watermarks.length; c++) {
      if (this.idle[c] || !this.aligned[c]) continue;
      any = true;
      const w = this.watermarks[c]!;
      if (w < min) min = w;
    }
    if (any && min > this.current) {
      this.current = min;
      this.onWatermark(min);
    }
  }
}
