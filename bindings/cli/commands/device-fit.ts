export async function deviceFitAction(_f: string[], _o: object): Promise<void> {
  throw new Error("not yet");
}
