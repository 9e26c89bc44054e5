import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer when SMTP_URL is set. Without it the mail goes to the server log, marked as development
 * mail, so a fresh install can still bind an e-mail address by reading the code from the console.
 */
export function createMailer(smtpUrl: string, from: string, log: FastifyBaseLogger): Mailer {
  if (!smtpUrl) {
    return {
      async send(mail) {
        log.warn(
          { devMail: true, to: mail.to, subject: mail.subject, text: mail.text },
          '开发邮件（未配置 SMTP_URL，未真正发送）',
        );
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(smtpUrl, { from });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
