/*
 * workloads.c — the table of workloads and the helpers their setups share.
 *
 * Each workload lives in its own file (w_<name>.c) and exports one
 * `const struct bench_workload`; this table is the only place that lists
 * them, in the order the suites and the outputs use.
 */
#include "workloads.h"
#include "bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const struct bench_workload *const bench_workloads[] = {
    &bench_w_demo,   &bench_w_mpiiotest, &bench_w_iormpiio, &bench_w_noncontig,
    &bench_w_hpio,   &bench_w_collperf,  &bench_w_tile,     &bench_w_flash,
    &bench_w_matrix, &bench_w_ecio,      &bench_w_varsize,  NULL,
};

const struct bench_workload *bench_workload_find(const char *name)
{
    for (int i = 0; bench_workloads[i]; i++)
        if (!strcmp(bench_workloads[i]->name, name))
            return bench_workloads[i];
    return NULL;
}

int bench_plan_calls(struct bench_plan *plan, int n)
{
    plan->calls = calloc((size_t)(n > 0 ? n : 1), sizeof *plan->calls);
    plan->ncalls = plan->calls ? n : 0;
    return plan->calls ? 0 : -1;
}

void bench_plan_free(struct bench_plan *plan)
{
    if (plan->filetype != MPI_DATATYPE_NULL && plan->filetype != 0 && plan->filetype != plan->etype)
        MPI_Type_free(&plan->filetype);
    if (plan->memtype != MPI_DATATYPE_NULL && plan->memtype != 0 && plan->memtype != plan->etype)
        MPI_Type_free(&plan->memtype);
    free(plan->calls);
    plan->calls = NULL;
    plan->ncalls = 0;
}

int bench_resized(MPI_Datatype base, MPI_Aint extent, MPI_Datatype *out)
{
    int rc = MPI_Type_create_resized(base, 0, extent, out);
    MPI_Type_free(&base);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int bench_fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}
