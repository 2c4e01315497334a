/**
 * Values kept once each, told apart by their JSON text: a list that many entries share is stored
 * once and the entries name it by index (a run's operations lists, its pinned records).
 */
export class DistinctJson {
  /** Each distinct value's JSON text, in the order first seen. */
  readonly texts: string[] = [];
  private readonly indexes = new Map<string, number>();

  /** The index of the value's JSON text, added when it is new. */
  indexOf(value: unknown): number {
    const text = JSON.stringify(value);
    let index = this.indexes.get(text);
    if (index === undefined) {
      index = this.texts.push(text) - 1;
      this.indexes.set(text, index);
    }
    return index;
  }
}
