-- Up Migration
-- Other services keep short-lived copies of shops (the links service prices every new link from one). Every
-- change of a shop row, whether by the shops service, the admin CLI or an operator's SQL, is announced on the
-- channel `shops_changed` with the shop id, and the shops service relays it over NATS (`shops.changed`) so those
-- copies go at once. Postgres delivers a NOTIFY at commit, and never for a change that was rolled back.
CREATE FUNCTION notify_shop_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('shops_changed', OLD.id::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER shops_changed AFTER UPDATE OR DELETE ON shops FOR EACH ROW EXECUTE FUNCTION notify_shop_changed();

-- Down Migration
DROP TRIGGER shops_changed ON shops;
DROP FUNCTION notify_shop_changed();
