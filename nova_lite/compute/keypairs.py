"""The business layer behind /os-keypairs: importing, generating and
deleting a user's key pairs, within the key_pairs quota.

An imported OpenSSH public key is checked for shape only: its base64 must
decode and name the same key type as the line does; the fingerprint is
the MD5 of that decoded blob, as ``ssh-keygen -l -E md5`` prints it. An
x509 key pair is a PEM certificate, fingerprinted by the SHA-1 of its DER.
Generation needs the ``cryptography`` package; without it a key pair can
only be imported.
"""

import base64
import binascii
import datetime
import hashlib
import struct

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import keypair as keypair_obj
from nova_lite import quota

SSH_KEY_TYPES = frozenset((
    'ssh-rsa', 'ssh-dss', 'ssh-ed25519',
    'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521',
    'sk-ssh-ed25519@openssh.com', 'sk-ecdsa-sha2-nistp256@openssh.com',
))


def _colon_hex(digest):
    return ':'.join('%02x' % byte for byte in digest)


def ssh_fingerprint(public_key):
    """The MD5 fingerprint (``aa:bb:...``) of an OpenSSH public key line;
    InvalidKeypair unless the line is ``<type> <base64> [comment]`` whose
    blob starts with that same type."""
    parts = public_key.split(None, 2)
    if len(parts) < 2:
        raise exception.InvalidKeypair(
            reason='an OpenSSH public key is "<type> <base64> [comment]".')
    key_type, encoded = parts[0], parts[1]
    if key_type not in SSH_KEY_TYPES:
        raise exception.InvalidKeypair(
            reason='unknown key type %r; expected one of %s.' % (
                key_type, ', '.join(sorted(SSH_KEY_TYPES))))
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise exception.InvalidKeypair(
            reason='the key is not valid base64.')
    # The blob opens with the key type as an SSH string: a 4-byte
    # big-endian length, then the bytes.
    if len(blob) < 4:
        raise exception.InvalidKeypair(reason='the key is too short.')
    length, = struct.unpack('>I', blob[:4])
    if blob[4:4 + length] != key_type.encode('ascii'):
        raise exception.InvalidKeypair(
            reason='the key does not hold a %s key.' % key_type)
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).digest())


def x509_fingerprint(certificate):
    """The SHA-1 fingerprint of a PEM certificate; InvalidKeypair."""
    try:
        from cryptography import x509
    except ImportError:
        raise exception.InvalidKeypair(
            reason='x509 certificates cannot be read here (the '
                   'cryptography package is not installed).')
    try:
        cert = x509.load_pem_x509_certificate(certificate.encode('utf-8'))
    except ValueError:
        raise exception.InvalidKeypair(
            reason='the public key is not a PEM x509 certificate.')
    from cryptography.hazmat.primitives import serialization
    der = cert.public_bytes(serialization.Encoding.DER)
    return _colon_hex(hashlib.sha1(der, usedforsecurity=False).digest())


def fingerprint(public_key, key_type):
    if key_type == keypair_obj.TYPE_X509:
        return x509_fingerprint(public_key)
    return ssh_fingerprint(public_key)


def generate(key_type, user_id):
    """(private key PEM, public key) of a new key pair of ``key_type``;
    KeypairGenerationUnsupported without the cryptography package."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.hazmat.primitives import serialization
    except ImportError:
        raise exception.KeypairGenerationUnsupported(
            reason='the cryptography package is not installed')
    if key_type == keypair_obj.TYPE_X509:
        private = rsa.generate_private_key(public_exponent=65537,
                                           key_size=2048)
        public = _self_signed_certificate(private, user_id)
        private_pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption())
    else:
        private = ed25519.Ed25519PrivateKey.generate()
        public = private.public_key().public_bytes(
            serialization.Encoding.OpenSSH,
            serialization.PublicFormat.OpenSSH).decode('ascii')
        private_pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption())
    return private_pem.decode('ascii'), public


def _self_signed_certificate(private, user_id):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography.x509.oid import NameOID

    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                            user_id or 'nova-lite')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(private.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=3650))
            .sign(private, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode('ascii')


def _check_quota(context, user_id, created=False):
    """OverQuota if one more key pair (or, once ``created``, the one just
    made) takes ``user_id`` past the key_pairs limit of the caller's
    project."""
    quota.check_deltas(context, context.project_id,
                       {'key_pairs': 0 if created else 1}, user_id=user_id)


def create(context, user_id, name, key_type=keypair_obj.TYPE_SSH,
           public_key=None):
    """Import ``public_key``, or generate a key pair when it is None.

    Returns (keypair, private key PEM or None). InvalidKeypair,
    KeyPairExists, OverQuota, KeypairGenerationUnsupported.
    """
    _check_quota(context, user_id)
    private_key = None
    if public_key is None:
        private_key, public_key = generate(key_type, user_id)
    else:
        public_key = public_key.strip()
    keypair = objects.KeyPair(
        context, name=name, user_id=user_id, type=key_type,
        public_key=public_key,
        fingerprint=fingerprint(public_key, key_type))
    keypair.create()
    try:
        # Counted again: two creates may both have passed the first check.
        _check_quota(context, user_id, created=True)
    except exception.OverQuota:
        keypair.destroy()
        raise
    return keypair, private_key


def get(context, user_id, name):
    return objects.KeyPair.get_by_name(context, user_id, name)


def get_all(context, user_id, limit=None, marker=None):
    """``user_id``'s key pairs by name, paged by ``limit`` and ``marker``
    (a key pair name; MarkerNotFound if the user has none of that name)."""
    return objects.KeyPairList.get_by_user(context, user_id, limit=limit,
                                           marker=marker)


def delete(context, user_id, name):
    objects.KeyPair.get_by_name(context, user_id, name).destroy()
