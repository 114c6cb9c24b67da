/* A ring buffer of samples with a statistics report. The report reads a field that the
 * sample struct does not have: gcc stops with "has no member named 'weight'". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_CAPACITY 16

struct sample {
    int id;
    double value;
    const char *label;
};

struct ring {
    struct sample items[RING_CAPACITY];
    size_t head;
    size_t count;
};

static void ring_init(struct ring *ring)
{
    memset(ring, 0, sizeof *ring);
}

static int ring_push(struct ring *ring, struct sample sample)
{
    if (ring->count == RING_CAPACITY) {
        ring->head = (ring->head + 1) % RING_CAPACITY;
        ring->count--;
    }
    size_t tail = (ring->head + ring->count) % RING_CAPACITY;
    ring->items[tail] = sample;
    ring->count++;
    return 0;
}

static const struct sample *ring_at(const struct ring *ring, size_t index)
{
    if (index >= ring->count)
        return NULL;
    return &ring->items[(ring->head + index) % RING_CAPACITY];
}

static double ring_mean(const struct ring *ring)
{
    double sum = 0.0;
    for (size_t i = 0; i < ring->count; i++)
        sum += ring_at(ring, i)->value;
    return ring->count ? sum / (double)ring->count : 0.0;
}

static double ring_weighted_mean(const struct ring *ring)
{
    double sum = 0.0, weights = 0.0;
    for (size_t i = 0; i < ring->count; i++) {
        const struct sample *s = ring_at(ring, i);
        sum += s->value * s->weight;
        weights += s->weight;
    }
    return weights > 0.0 ? sum / weights : 0.0;
}

static void report(const struct ring *ring)
{
    printf("%zu samples\n", ring->count);
    printf("mean %.3f\n", ring_mean(ring));
    printf("weighted mean %.3f\n", ring_weighted_mean(ring));
    for (size_t i = 0; i < ring->count; i++) {
        const struct sample *s = ring_at(ring, i);
        printf("  #%d %-8s %8.3f\n", s->id, s->label, s->value);
    }
}

int main(int argc, char **argv)
{
    struct ring ring;
    ring_init(&ring);
    int n = argc > 1 ? atoi(argv[1]) : 20;
    for (int i = 0; i < n; i++) {
        struct sample s = { i, i * 0.5, i % 2 ? "odd" : "even" };
        ring_push(&ring, s);
    }
    report(&ring);
    return EXIT_SUCCESS;
}
