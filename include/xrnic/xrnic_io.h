/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * XRNIC hardware interface: data-path queue geometry.
 *
 * Send, receive and completion rings are arrays of fixed-size entries in
 * host memory.  The entry layouts arrive with the data path; the sizes are
 * fixed now because the driver allocates the rings.
 */
#ifndef XRNIC_IO_H
#define XRNIC_IO_H

#define XRNIC_SQE_SIZE		128	/* send work queue entry */
#define XRNIC_RQE_SIZE		128	/* receive work queue entry */
#define XRNIC_CQE_SIZE		32	/* completion queue entry */
#define XRNIC_MAX_SGE		6	/* scatter/gather entries per WQE */
#define XRNIC_MAX_INLINE	64	/* inline send data per WQE */

#endif /* XRNIC_IO_H */
