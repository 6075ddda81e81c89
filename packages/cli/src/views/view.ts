/** What every report view returns: the text a terminal shows and the data `--json` prints. */
export interface View { text: string; data: unknown }
