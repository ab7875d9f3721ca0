#include <stdlib.h>

#define LIST_MAX 128
#define SQUARE(x) ((x) * (x))

/* A singly linked list node. */
struct node {
    int value;
    struct node *next;
};

typedef struct node node_t;

union number { int i; double d; };

enum color { RED, GREEN };

/* Pushes a value onto the list. */
node_t *list_push(node_t *head, int value);

int list_len(const node_t *head);

/*
 * Pushes value in front of head and returns the new head.
 */
node_t *list_push(node_t *head, int value) {
    node_t *n = malloc(sizeof *n);
    n->value = value;
    n->next = head;
    return n;
}
