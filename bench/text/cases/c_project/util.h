/* Fixed-point helpers shared by the mixer. */
#ifndef UTIL_H
#define UTIL_H

#define FIX_SHIFT 8
#define FIX_ONE (1 << FIX_SHIFT)
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

typedef int fixed;

struct channel {
    const char *name;
    fixed gain;
    fixed pan;
    int muted;
};

static inline fixed fix_from_int(int v) { return v << FIX_SHIFT; }
static inline int fix_to_int(fixed v) { return v >> FIX_SHIFT; }
static inline fixed fix_mul(fixed a, fixed b) { return (fixed)(((long)a * b) >> FIX_SHIFT); }

/* Scales a sample by a gain in fixed point. */
int scale(int sample, fixed gain);
fixed mix_gain(const struct channel *channels, int count);
int channel_count_active(const struct channel *channels, int count);

#endif
