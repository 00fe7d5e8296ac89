// SPDX-License-Identifier: GPL-2.0
/*
 * Device registry: allocation, naming and registration of RDMA devices.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "core_priv.h"

struct class xr_class = {
	.name = "infiniband",
	.dev_groups = xr_dev_groups,
};

/*
 * xr_devices_lock protects xr_devices, the names of registered devices and
 * changes to xr_clients.
 */
static DEFINE_MUTEX(xr_devices_lock);
static DEFINE_XARRAY_FLAGS(xr_devices, XA_FLAGS_ALLOC);

/*
 * The core's parts that serve every device, in registration order.  The
 * list changes only while no device is registered (at module init and
 * exit), so registration and unregistration walk it without a lock.
 */
static LIST_HEAD(xr_clients);

/**
 * xr_register_client - add a part of the core that serves every device
 * @client: its add, remove and event callbacks
 *
 * As Linux's ib_register_client(), with one difference: the clients are
 * the core's own parts, registered at module init before any driver can
 * register a device.  Devices call @client->add in registration order and
 * @client->remove in the reverse order.
 *
 * Return: 0, or -EBUSY once a device is registered.
 */
int xr_register_client(struct xr_client *client)
{
	int ret = 0;

	mutex_lock(&xr_devices_lock);
	if (WARN_ON(!xa_empty(&xr_devices)))
		ret = -EBUSY;
	else
		list_add_tail(&client->list, &xr_clients);
	mutex_unlock(&xr_devices_lock);
	return ret;
}

/**
 * xr_unregister_client - remove a client added by xr_register_client()
 * @client: the client
 *
 * Context: module exit, when no device is registered.
 */
void xr_unregister_client(struct xr_client *client)
{
	mutex_lock(&xr_devices_lock);
	WARN_ON(!xa_empty(&xr_devices));
	list_del(&client->list);
	mutex_unlock(&xr_devices_lock);
}

/* Remove the clients before @last (all: NULL is past the end) in reverse. */
static void xr_remove_clients(struct xr_device *xdev, struct xr_client *last)
{
	struct xr_client *client = last ? last : list_entry(&xr_clients, struct xr_client, list);

	list_for_each_entry_continue_reverse(client, &xr_clients, list)
		if (client->remove)
			client->remove(xdev);
}

static int xr_add_clients(struct xr_device *xdev)
{
	struct xr_client *client;
	int ret;

	list_for_each_entry(client, &xr_clients, list) {
		if (!client->add)
			continue;
		ret = client->add(xdev);
		if (ret) {
			xr_remove_clients(xdev, client);
			return ret;
		}
	}
	down_write(&xdev->clients_lock);
	xdev->clients_ready = true;
	up_write(&xdev->clients_lock);
	return 0;
}

/*
 * Tell every client of an event.  Between registration and
 * unregistration only: unregistration waits for a report in progress
 * before it removes a client.
 */
static void xr_clients_event(struct xr_device *xdev, u32 port, u32 event_type)
{
	struct xr_client *client;

	down_read(&xdev->clients_lock);
	if (xdev->clients_ready)
		list_for_each_entry(client, &xr_clients, list)
			if (client->event)
				client->event(xdev, port, event_type);
	up_read(&xdev->clients_lock);
}

static void xr_device_release(struct device *dev)
{
	struct xr_device *xdev = container_of(dev, struct xr_device, dev);

	xr_restrack_destroy(xdev);
	WARN_ON(!xa_empty(&xdev->user_usage));
	xa_destroy(&xdev->user_usage);
	mutex_destroy(&xdev->user_lock);
	kfree(xdev->cm_counters);
	kfree(xdev);
}

/**
 * xr_alloc_device - allocate a zeroed device structure
 * @size: size of the driver's structure, which must start with struct
 *	xr_device (the core frees it as one allocation)
 *
 * Return: the new device, or NULL when out of memory.
 */
struct xr_device *xr_alloc_device(size_t size)
{
	struct xr_device *xdev;

	if (WARN_ON(size < sizeof(*xdev)))
		return NULL;
	xdev = kzalloc(size, GFP_KERNEL);
	if (!xdev)
		return NULL;
	xr_restrack_init(xdev);
	init_rwsem(&xdev->clients_lock);
	mutex_init(&xdev->user_lock);
	xa_init(&xdev->user_usage);
	device_initialize(&xdev->dev);
	xdev->dev.class = &xr_class;
	xdev->dev.release = xr_device_release;
	return xdev;
}
EXPORT_SYMBOL_GPL(xr_alloc_device);

/**
 * xr_dealloc_device - drop the driver's reference to a device
 * @xdev: a device from xr_alloc_device(), not registered
 *
 * The memory is freed once sysfs no longer uses it.
 */
void xr_dealloc_device(struct xr_device *xdev)
{
	WARN_ON(xdev->registered);
	put_device(&xdev->dev);
}
EXPORT_SYMBOL_GPL(xr_dealloc_device);

/* Caller holds xr_devices_lock. */
static bool xr_name_in_use(const char *name)
{
	struct xr_device *xdev;
	unsigned long index;

	xa_for_each(&xr_devices, index, xdev)
		if (!strcmp(xdev->name, name))
			return true;
	return false;
}

/* Give @xdev the first free name from @fmt ("xrnic%d"); caller holds the lock. */
static int xr_assign_name(struct xr_device *xdev, const char *fmt)
{
	char name[XR_DEVICE_NAME_MAX];
	int i;

	for (i = 0; i < INT_MAX; i++) {
		if (snprintf(name, sizeof(name), fmt, i) >= sizeof(name))
			return -EINVAL;
		if (!xr_name_in_use(name)) {
			strscpy(xdev->name, name, sizeof(xdev->name));
			return dev_set_name(&xdev->dev, "%s", name);
		}
	}
	return -ENFILE;
}

/* Every command of the uverbs ABI relies on these. */
static bool xr_ops_complete(const struct xr_device_ops *ops)
{
	return ops && ops->query_device && ops->query_port &&
	       ops->alloc_ucontext && ops->alloc_pd && ops->dealloc_pd &&
	       ops->reg_mr && ops->dereg_mr && ops->create_cq &&
	       ops->destroy_cq && ops->create_qp && ops->modify_qp &&
	       ops->query_qp && ops->destroy_qp && ops->query_stats &&
	       ops->counter_names;
}

/**
 * xr_register_device - make a device visible to users
 * @xdev: the device, with every op, identity, phys_port_cnt and
 *	dma_device filled in
 * @name_fmt: name template with one %d, such as "xrnic%d"
 * @parent: the bus device (PCI function) behind it
 *
 * Queries the device limits, names the device, and adds it to sysfs.
 *
 * Return: 0 or a negative errno.
 */
int xr_register_device(struct xr_device *xdev, const char *name_fmt,
		       struct device *parent)
{
	u32 index;
	int ret;

	if (!xr_ops_complete(xdev->ops) || !xdev->phys_port_cnt ||
	    !xdev->dma_device)
		return -EINVAL;

	ret = xdev->ops->query_device(xdev, &xdev->attr);
	if (ret)
		return ret;
	/* Freed with the device: IB CM may count until its last user is gone. */
	if (!xdev->cm_counters) {
		xdev->cm_counters = kcalloc(xdev->phys_port_cnt, sizeof(*xdev->cm_counters),
					    GFP_KERNEL);
		if (!xdev->cm_counters)
			return -ENOMEM;
	}

	xdev->dev.parent = parent;
	refcount_set(&xdev->users, 1);
	init_completion(&xdev->users_done);
	mutex_lock(&xr_devices_lock);
	ret = xr_assign_name(xdev, name_fmt);
	if (ret)
		goto err_unlock;
	ret = xa_alloc(&xr_devices, &index, NULL, xa_limit_31b, GFP_KERNEL);
	if (ret)
		goto err_unlock;
	xdev->index = index;
	ret = xr_gid_table_init(xdev);
	if (ret)
		goto err_erase;
	ret = device_add(&xdev->dev);
	if (ret)
		goto err_gids;
	ret = xr_add_port_sysfs(xdev);
	if (ret)
		goto err_del;
	ret = xr_add_clients(xdev);
	if (ret)
		goto err_remove_ports;
	xdev->registered = true;
	xa_store(&xr_devices, index, xdev, GFP_KERNEL);
	mutex_unlock(&xr_devices_lock);
	dev_info(&xdev->dev, "registered, %u port(s), firmware %s\n",
		 xdev->phys_port_cnt, xdev->fw_ver);
	return 0;

err_remove_ports:
	xr_remove_port_sysfs(xdev);
err_del:
	device_del(&xdev->dev);
err_gids:
	xr_gid_table_destroy(xdev);
err_erase:
	xa_erase(&xr_devices, index);
err_unlock:
	mutex_unlock(&xr_devices_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xr_register_device);

/**
 * xr_unregister_device - remove a device from users' view
 * @xdev: a registered device
 *
 * The clients let go of it in the reverse order of their registration (the
 * RDMA CM's ids, which hold references, then the IB CM connections they
 * left sending their DREQs, then the open uverbs files); then it waits
 * for lookups in progress (netlink) and for sysfs readers to finish.  The
 * driver may then tear down the hardware and call xr_dealloc_device().
 */
void xr_unregister_device(struct xr_device *xdev)
{
	mutex_lock(&xr_devices_lock);
	xa_erase(&xr_devices, xdev->index);
	xdev->registered = false;
	mutex_unlock(&xr_devices_lock);
	down_write(&xdev->clients_lock);
	xdev->clients_ready = false;
	up_write(&xdev->clients_lock);
	xr_remove_clients(xdev, NULL);
	xr_device_put(xdev);
	wait_for_completion(&xdev->users_done);

	xr_remove_port_sysfs(xdev);
	dev_info(&xdev->dev, "unregistered\n");
	device_del(&xdev->dev);
	xr_gid_table_destroy(xdev);
}
EXPORT_SYMBOL_GPL(xr_unregister_device);

/**
 * xr_device_fatal - a driver reports that its device stopped working
 * @xdev: a registered device
 *
 * Every open context gets a fatal event and is cut off from the device: its
 * objects are destroyed, its mappings zapped, and its commands fail with
 * -EIO from now on.  New contexts are refused.  A device that is not
 * registered (yet, or any more) has no users to tell; unregistration waits
 * for a fatal report in progress.
 *
 * Context: process context; sleeps (waits for commands in progress).
 */
void xr_device_fatal(struct xr_device *xdev)
{
	if (xchg(&xdev->dead, true))
		return;
	dev_err(&xdev->dev, "device is dead; disconnecting its users\n");
	xr_clients_event(xdev, 0, XR_EVENT_DEVICE_FATAL);
}
EXPORT_SYMBOL_GPL(xr_device_fatal);

/**
 * xr_port_event - a driver reports that a port went up or down
 * @xdev: the device
 * @port: the port, from 1
 * @active: the port is now active (else it went down)
 *
 * Every open context gets IB_EVENT_PORT_ACTIVE or IB_EVENT_PORT_ERR on its
 * async event file.  Events before registration completes or after
 * unregistration starts are dropped.
 *
 * Context: process context; sleeps.
 */
void xr_port_event(struct xr_device *xdev, u32 port, bool active)
{
	xr_clients_event(xdev, port, active ? XR_EVENT_PORT_ACTIVE : XR_EVENT_PORT_ERR);
}
EXPORT_SYMBOL_GPL(xr_port_event);

/**
 * xr_device_get_by_index - find a registered device by its index
 * @index: its xr_device.index
 *
 * Return: the device with a reference held (xr_device_put()), or NULL.
 * While the reference is held the device stays registered and its driver
 * bound, so its ops may be called.
 */
struct xr_device *xr_device_get_by_index(u32 index)
{
	struct xr_device *xdev;

	mutex_lock(&xr_devices_lock);
	xdev = xa_load(&xr_devices, index);
	if (xdev)
		refcount_inc(&xdev->users);
	mutex_unlock(&xr_devices_lock);
	return xdev;
}

/**
 * xr_device_get_next - iterate over registered devices
 * @index: in: the first index to look at; out: the index found
 *
 * Return: the device with the lowest index >= *@index, with a reference
 * held, or NULL when there is none.
 */
struct xr_device *xr_device_get_next(unsigned long *index)
{
	struct xr_device *xdev;

	mutex_lock(&xr_devices_lock);
	xdev = xa_find(&xr_devices, index, ULONG_MAX, XA_PRESENT);
	if (xdev)
		refcount_inc(&xdev->users);
	mutex_unlock(&xr_devices_lock);
	return xdev;
}

/**
 * xr_device_get_by_name - find a registered device by name
 * @name: the device name
 *
 * Return: the device with a reference held, or NULL.
 */
struct xr_device *xr_device_get_by_name(const char *name)
{
	struct xr_device *xdev;
	unsigned long index;

	mutex_lock(&xr_devices_lock);
	xa_for_each(&xr_devices, index, xdev) {
		if (!strcmp(xdev->name, name)) {
			refcount_inc(&xdev->users);
			mutex_unlock(&xr_devices_lock);
			return xdev;
		}
	}
	mutex_unlock(&xr_devices_lock);
	return NULL;
}

/**
 * xr_device_put - drop a reference taken by an xr_device_get_*() call
 * @xdev: the device
 */
void xr_device_put(struct xr_device *xdev)
{
	if (refcount_dec_and_test(&xdev->users))
		complete(&xdev->users_done);
}

/**
 * xr_device_rename - give a registered device a new name
 * @xdev: the device
 * @name: the new name
 *
 * Return: 0, -EEXIST if another device has the name, -EINVAL for a name
 * that is empty, too long or contains '/' or '%', or another errno.
 */
int xr_device_rename(struct xr_device *xdev, const char *name)
{
	int ret;

	if (!*name || strlen(name) >= XR_DEVICE_NAME_MAX ||
	    strpbrk(name, "/% \t\n"))
		return -EINVAL;
	mutex_lock(&xr_devices_lock);
	if (!xdev->registered) {
		ret = -ENODEV;
	} else if (!strcmp(name, xdev->name)) {
		ret = 0;
	} else if (xr_name_in_use(name)) {
		ret = -EEXIST;
	} else {
		ret = device_rename(&xdev->dev, name);
		if (!ret) {
			strscpy(xdev->name, name, sizeof(xdev->name));
			dev_info(&xdev->dev, "renamed\n");
		}
	}
	mutex_unlock(&xr_devices_lock);
	return ret;
}

/**
 * xr_device_init - register the infiniband class
 *
 * Return: 0 or a negative errno.
 */
int xr_device_init(void)
{
	return class_register(&xr_class);
}

/**
 * xr_device_exit - unregister the infiniband class
 *
 * Module references from drivers guarantee no device is left.
 */
void xr_device_exit(void)
{
	WARN_ON(!xa_empty(&xr_devices));
	class_unregister(&xr_class);
}
