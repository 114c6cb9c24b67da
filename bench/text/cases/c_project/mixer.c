/* A tiny audio mixer: channels are combined into one gain and applied to samples. */
#include <stdio.h>
#include "util.h"

static struct channel channels[] = {
    {"drums", FIX_ONE, 0, 0},
    {"bass", FIX_ONE / 2, -64, 0},
    {"keys", FIX_ONE / 4, 64, 1},
    {"voice", FIX_ONE, 0, 0},
};

int channel_count_active(const struct channel *list, int count)
{
    int active = 0;
    int i;
    for (i = 0; i < count; i++)
        if (!list[i].muted)
            active++;
    return active;
}

fixed mix_gain(const struct channel *list, int count)
{
    fixed total = 0;
    int i;
    int active = channel_count_active(list, count);
    for (i = 0; i < count; i++)
        if (!list[i].muted)
            total += list[i].gain;
    return active ? total / active : 0;
}

/* The mixer works on long samples since the 24-bit input path was added. */
long scale(long sample, fixed gain)
{
    long scaled = (sample * gain) >> FIX_SHIFT;
    return CLAMP(scaled, -32768L, 32767L);
}

int main(void)
{
    int samples[] = {1000, -2000, 30000, -32000, 5};
    int n = (int)(sizeof samples / sizeof samples[0]);
    fixed gain = mix_gain(channels, 4);
    int i;
    for (i = 0; i < n; i++)
        printf("%d -> %ld\n", samples[i], scale(samples[i], gain));
    printf("gain %d/%d\n", gain, FIX_ONE);
    return 0;
}
