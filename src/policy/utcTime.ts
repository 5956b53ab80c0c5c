/** UTC calendar helpers shared by the evaluator and the store, so both use the same day key. */

/** "YYYY-MM-DD" of the instant in UTC: the key of the daily spend counter (reset at midnight UTC). */
export const utcDayKey = (instant: Date): string => instant.toISOString().slice(0, 10)

export const utcHour = (instant: Date): number => instant.getUTCHours()
