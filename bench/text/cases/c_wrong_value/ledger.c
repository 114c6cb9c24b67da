/* A tiny double-entry ledger: postings are applied to accounts, then a report is printed. */
#include <stdio.h>
#include <string.h>

#define MAX_ACCOUNTS 8
#define MAX_POSTINGS 32

struct account {
    char name[16];
    long balance;
    int kind; /* 0 asset, 1 liability, 2 income */
};

struct posting {
    int from;
    int to;
    long amount;
};

static struct account accounts[MAX_ACCOUNTS];
static int account_count;

static int open_account(const char *name, int kind)
{
    struct account *a = &accounts[account_count];
    strncpy(a->name, name, sizeof a->name - 1);
    a->balance = 0;
    a->kind = kind;
    return account_count++;
}

static void apply(const struct posting *p)
{
    accounts[p->from].balance -= p->amount;
    accounts[p->to].balance += p->amount;
}

static long fee(long amount)
{
    /* One percent, rounded down, at least one unit. */
    long f = amount / 100;
    return f > 0 ? f : 1;
}

static long interest(long balance, int months)
{
    long total = balance;
    int m;
    for (m = 0; m < months; m++)
        total += total / 50;
    return total - balance;
}

static long sum_kind(int kind)
{
    long total = 0;
    int i;
    for (i = 0; i < account_count; i++)
        if (accounts[i].kind == kind)
            total += accounts[i].balance;
    return total;
}

int main(void)
{
    struct posting postings[MAX_POSTINGS];
    int n = 0, i;
    int cash = open_account("cash", 0);
    int bank = open_account("bank", 0);
    int loan = open_account("loan", 1);
    int sales = open_account("sales", 2);

    postings[n++] = (struct posting){sales, cash, 1250};
    postings[n++] = (struct posting){sales, bank, 3300};
    postings[n++] = (struct posting){loan, bank, 10000};
    postings[n++] = (struct posting){cash, bank, 700};
    for (i = 0; i < n; i++) {
        apply(&postings[i]);
        accounts[postings[i].to].balance -= fee(postings[i].amount);
    }
    accounts[bank].balance += interest(accounts[bank].balance, 3);
    printf("assets %ld\n", sum_kind(0));
    printf("liabilities %ld\n", sum_kind(1));
    printf("income %ld\n", sum_kind(2));
    printf("cash %ld bank %ld\n", accounts[cash].balance, accounts[bank].balance);
    return 0;
}
